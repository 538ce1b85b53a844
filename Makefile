# Makefile - builds the lab: the harness `./lab`, the workloads, the tests.
#
#   make            build everything into $(BUILD)/, link ./lab -> $(BUILD)/bin/lab
#   make deps       install missing Debian packages (as root), or say what to install
#   make run        quick run of the default experiments, plots under results/latest/
#   make test       unit + integration tests (tests/run.sh), closing "N passed, N failed"
#   make asan       runtime tests under AddressSanitizer (fiber annotations)
#   make valgrind   runtime tests under valgrind (stack registration)
#   make test-cgroup2  the sandbox tests in a qemu VM with a cgroup-v2-only kernel
#   make docker     build the lab's image (docker, else podman); make docker-run runs it
#   make test-docker   the Docker reproduction test alone (also part of make test)
#   make fuzz       libFuzzer on the profile and seccomp parsers, FUZZ_SECONDS (60) each
#
# Sources are found by directory, so adding a file needs no Makefile change:
#   harness/*.c            -> $(BUILD)/libharness.a (+ harness/main.c -> lab)
#   experiments/runtime/*  -> $(BUILD)/libcoro.a   (coroutine runtime, .c and .S)
#   experiments/common/*.c -> $(BUILD)/libwl.a     (workload protocol)
#   experiments/<exp>/*.c  -> $(BUILD)/bin/wl-<exp>
#   tests/*.c              -> $(BUILD)/tests/<name> (cmocka; exit 0 pass, 1 fail, 77 skip)

ARCH := $(shell uname -m)
ifeq ($(filter x86_64,$(ARCH)),)
$(error the coroutine context switch exists for x86_64 only; this machine is $(ARCH))
endif

BUILD ?= build
CC ?= cc
PKGS := liburing libseccomp json-c
OPT ?= -O2
SAN ?=
EXTRA_CFLAGS ?=
CFLAGS_ALL = -std=gnu11 $(OPT) -g -pthread -D_GNU_SOURCE -fno-omit-frame-pointer \
	-Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-unused-parameter -Wmissing-prototypes \
	-Wstrict-prototypes -Wvla -Wno-format-truncation -Iharness -Iexperiments/common -Iexperiments/runtime \
	$(SAN) $(EXTRA_CFLAGS) $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# -z now: no lazy PLT binding.  The lazy resolver saves the whole XSAVE area
# (~2.7 KiB with AVX-512) on the caller's stack, which overflows a coroutine's
# 4 KiB stack the first time it calls into libc (experiments/runtime/coro.h).
LDLIBS_ALL = $(SAN) -pthread $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -Wl,-z,now
TEST_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

HARNESS_SRC := $(filter-out harness/main.c,$(wildcard harness/*.c))
RUNTIME_SRC := $(wildcard experiments/runtime/*.c experiments/runtime/*.S)
WL_SRC := $(wildcard experiments/common/*.c)
EXPERIMENTS := $(filter-out runtime common,$(notdir $(patsubst %/,%,$(wildcard experiments/*/))))
TEST_SRC := $(wildcard tests/*.c)

obj = $(patsubst %,$(BUILD)/obj/%.o,$(basename $(1)))
HARNESS_OBJ := $(call obj,$(HARNESS_SRC))
RUNTIME_OBJ := $(call obj,$(RUNTIME_SRC))
WL_OBJ := $(call obj,$(WL_SRC))
WORKLOADS := $(patsubst %,$(BUILD)/bin/wl-%,$(EXPERIMENTS))
TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
LIBS := $(BUILD)/libharness.a $(BUILD)/libwl.a $(BUILD)/libcoro.a

.PHONY: FORCE all deps run test test-quick asan valgrind test-cgroup2 docker docker-run test-docker fuzz clean
.SECONDARY:

# Reference peers (harness/peers.c): Go programs under experiments/<exp>/go and
# Boost.Context's fcontext under experiments/<exp>/fcontext, built only where
# their toolchain is installed; elsewhere lab list marks them unavailable.
GO := $(shell command -v go 2>/dev/null)
CXX_FOUND := $(shell command -v $(CXX) 2>/dev/null)
HAVE_FCONTEXT := $(wildcard /usr/include/boost/context/detail/fcontext.hpp)
GO_PEERS := $(patsubst experiments/%/go,$(BUILD)/bin/wl-%-go,$(filter-out experiments/common/go,$(wildcard experiments/*/go)))
FCONTEXT_PEERS := $(patsubst experiments/%/fcontext,$(BUILD)/bin/wl-%-fcontext,$(wildcard experiments/*/fcontext))
PEERS := $(if $(GO),$(GO_PEERS)) $(if $(and $(CXX_FOUND),$(HAVE_FCONTEXT)),$(FCONTEXT_PEERS))

all: $(BUILD)/bin/lab $(WORKLOADS) $(PEERS) $(TESTS) $(BUILD)/bin/buildflags.txt $(if $(filter build,$(BUILD)),lab)

# Recorded in every run's meta.json.
$(BUILD)/bin/buildflags.txt: FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(shell $(CC) -dumpfullversion) -std=gnu11 $(OPT) -g -fno-omit-frame-pointer $(SAN) $(EXTRA_CFLAGS)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

lab: $(BUILD)/bin/lab
	ln -sfn $(BUILD)/bin/lab lab

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/libharness.a: $(HARNESS_OBJ)
	@rm -f $@; ar rcs $@ $^
$(BUILD)/libcoro.a: $(RUNTIME_OBJ)
	@rm -f $@; ar rcs $@ $^
$(BUILD)/libwl.a: $(WL_OBJ)
	@rm -f $@; ar rcs $@ $^

$(BUILD)/bin/lab: $(BUILD)/obj/harness/main.o $(BUILD)/libharness.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDLIBS_ALL)

# One workload binary per experiment directory.
.SECONDEXPANSION:
$(BUILD)/bin/wl-%: $$(call obj,$$(wildcard experiments/%/*.c)) $(BUILD)/libwl.a $(BUILD)/libcoro.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDLIBS_ALL)

# Go peers: the standard library only (go.mod has no requirements), so no
# module is ever downloaded (GOPROXY=off); the build cache stays under $(BUILD).
$(BUILD)/bin/wl-%-go: experiments/%/go/main.go $(wildcard experiments/common/go/*.go) go.mod
	@mkdir -p $(dir $@)
	GOCACHE=$(abspath $(BUILD))/gocache GOPROXY=off GOFLAGS= GO111MODULE=on $(GO) build -trimpath -o $@ ./experiments/$*/go

$(BUILD)/bin/wl-%-fcontext: experiments/%/fcontext/main.cpp $(BUILD)/libwl.a
	@mkdir -p $(dir $@)
	$(CXX) -std=gnu++17 $(OPT) -g -Wall -Wextra -Werror -Iexperiments/common $(SAN) -o $@ $< $(BUILD)/libwl.a \
	  $(LDLIBS_ALL) -lboost_context

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LIBS) $(LDLIBS_ALL) $(TEST_LIBS)

deps:
	@sh tools/deps.sh

run: deps
	@$(MAKE) --no-print-directory all
	./lab run spawn switch memory seccomp --scale quick --repeat 3

test: deps
	@$(MAKE) --no-print-directory all
	@sh tests/run.sh $(BUILD)

# cgroup v2 for real: boots Debian's cloud kernel in qemu (TCG) with a busybox initramfs
# holding the lab, runs the sandbox tests there (tools/vm/guest-tests.sh). make test runs it too.
test-cgroup2: deps
	@$(MAKE) --no-print-directory all
	@sh tools/vm/run.sh $(BUILD)

# Docker reproduction (tools/docker/, Dockerfile): the engine and flags come
# from tools/docker/engine.sh; results land in ./results (LAB_RESULTS=DIR).
docker:
	@sh tools/docker/deps.sh && sh tools/docker/build.sh

docker-run:
	@sh tools/docker/run.sh $(ARGS)

test-docker: deps
	@$(MAKE) --no-print-directory all
	@LAB_BUILD=$(BUILD) sh tests/docker-repro.sh

# clang + libFuzzer (test-only packages, tools/fuzz/deps.sh); findings land in tests/fuzz-regress/.
FUZZ_SECONDS ?= 60
fuzz:
	@sh tools/fuzz/run.sh $(FUZZ_SECONDS) build-fuzz

asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 \
	  SAN="-fsanitize=address -fsanitize=undefined" EXTRA_CFLAGS=-DLAB_ASAN all
	@sh tests/run.sh build-asan runtime

valgrind:
	@sh tools/deps.sh valgrind
	@$(MAKE) --no-print-directory BUILD=build-valgrind EXTRA_CFLAGS=-DLAB_VALGRIND all
	@LAB_VALGRIND=1 sh tests/run.sh build-valgrind runtime

clean:
	rm -rf build build-asan build-valgrind build-fuzz lab

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
