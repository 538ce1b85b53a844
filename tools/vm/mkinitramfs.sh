#!/bin/sh
# mkinitramfs.sh - builds the cgroup-v2 test VM's initramfs.
#
#   sh tools/vm/mkinitramfs.sh BUILD BUSYBOX OUT [KERNEL_DIR]
#
# The tree (BUILD/vm/rootfs) mirrors the repository under /lab, so `lab` finds
# containers/ and seccomp/ from /proc/self/exe as it does on the host:
#   /lab/BUILD/bin/{lab,wl-*}  /lab/lab -> BUILD/bin/lab  /lab/containers
#   /lab/seccomp  /lab/tools/vm/guest-tests.sh  /usr/local/bin/vmhelper
# plus every shared library `ldd` lists for those binaries (and the dynamic
# loader) at the same path as on the host, busybox with its applet links, and
# /init (tools/vm/init).  With KERNEL_DIR (tools/vm/fetch.sh's directory of
# the kernel package), the modules for a zram swap device (zsmalloc, lzo-rle,
# zram) go to /lib/lab-modules: the guest's swap test loads them (the
# initramfs root is ramfs, which cannot hold a swap file).  Written as a
# gzip'd newc cpio by busybox itself.
set -eu
BUILD=$1
BUSYBOX=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
OUT=$3
KDIR=${4:-}
root="$BUILD/vm/rootfs"

rm -rf "$root"
mkdir -p "$root" && root=$(cd "$root" && pwd)
for d in bin sbin usr/bin usr/sbin usr/local/bin proc sys dev tmp run root etc \
         "lab/$BUILD/bin" lab/tools/vm; do
  mkdir -p "$root/$d"
done

# busybox and one link per applet (bin/sh, usr/bin/awk, ...).
cp "$BUSYBOX" "$root/bin/busybox"
"$BUSYBOX" --list-full | while read -r applet; do
  [ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done

# The lab: its binaries, profiles and the guest's tests.
cp "$BUILD"/bin/* "$root/lab/$BUILD/bin/"
ln -s "$BUILD/bin/lab" "$root/lab/lab"
for d in containers seccomp; do
  [ -d "$d" ] && cp -r "$d" "$root/lab/"
done
cp tools/vm/guest-tests.sh "$root/lab/tools/vm/"
# Static, so it needs nothing in the guest; without libc6-dev's libc.a the
# tests that need it skip.
cc -static -O2 -Wall -Wextra -Werror -o "$root/usr/local/bin/vmhelper" tools/vm/vmhelper.c ||
  echo "vm: cannot build a static tools/vm/vmhelper.c; the guest tests that need it will skip" >&2
cp tools/vm/init "$root/init"
chmod 755 "$root/init"

# Shared libraries and the loader, at their host paths.
for bin in "$BUILD"/bin/*; do
  ldd "$bin" 2>/dev/null | awk '
    $2 == "=>" && $3 ~ /^\// { print $3 }
    $1 ~ /^\// { print $1 }'
done | sort -u | while read -r lib; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done

# zram swap: modules from the kernel package, in load order (a missing one
# only makes the guest's swap test skip).
deb=$(ls "$KDIR"/../deb/*.deb "$KDIR"/deb/*.deb 2>/dev/null | head -n 1)
if [ -n "$KDIR" ] && [ -n "$deb" ]; then
  mkdir -p "$root/lib/lab-modules" "$BUILD/vm/kmods"
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$BUILD/vm/kmods" --wildcards './lib/modules/*/kernel/mm/zsmalloc.ko' \
    './lib/modules/*/kernel/crypto/lzo-rle.ko' './lib/modules/*/kernel/drivers/block/zram/zram.ko' 2>/dev/null ||
    echo "vm: no zram modules in $deb; the guest's swap test will skip" >&2
  for m in zsmalloc lzo-rle zram; do
    f=$(find "$BUILD/vm/kmods" -name "$m.ko" | head -n 1)
    [ -n "$f" ] && cp "$f" "$root/lib/lab-modules/"
  done
fi

printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
# The console, so the kernel can hand /init its stdio before devtmpfs is up.
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true

(cd "$root" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null) | gzip -1 >"$OUT.tmp"
# A pipeline's failure escapes set -e: check that the archive holds /init.
gzip -dc "$OUT.tmp" | "$BUSYBOX" cpio -t 2>/dev/null | grep -qx init || {
  echo "vm: the initramfs written to $OUT.tmp holds no /init" >&2; exit 1; }
mv "$OUT.tmp" "$OUT"
