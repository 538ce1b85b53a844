# Dockerfile - the lab in a container: Debian 12, the packages `make deps`
# installs (tools/deps.sh is the one list), the lab built, `lab` as the entry
# point.  The default command reproduces `make run`; results land in the
# volume at /lab/results.  See README.md, "Reproduce with Docker".
#
#   make docker && make docker-run                       (either engine)
#   docker run --rm --privileged --cgroupns=private \
#     -v "$PWD/results:/lab/results" lab run spawn --scale quick
#
# Where no registry is reachable, tools/docker/base.sh makes debian:12 locally
# (debootstrap + import) under the official name, so this file is the same
# everywhere.
ARG BASE=debian:12
FROM ${BASE}

ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
WORKDIR /lab

# The package list first: this layer is rebuilt only when the list changes.
COPY tools/deps.sh tools/deps.sh
RUN sh tools/deps.sh && apt-get clean && rm -rf /var/lib/apt/lists/*

COPY . .
ARG LAB_REVISION=unknown
RUN echo "$LAB_REVISION" > REVISION && make -j"$(nproc)" all && rm -rf build/obj

VOLUME /lab/results
ENTRYPOINT ["/lab/tools/docker/entrypoint.sh"]
CMD ["run", "spawn", "switch", "memory", "seccomp", "--scale", "quick", "--repeat", "3"]
