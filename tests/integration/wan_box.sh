#!/usr/bin/env bash
# A WAN shaped by the kernel's netem, for a machine whose own kernel has none: a small QEMU guest
# (Debian's cloud kernel, which has sch_netem, and a busybox initramfs) bridges each shaped test
# host's link and delays and rate-limits every frame that crosses it, both ways. It runs under
# TCG: this VM's nested KVM hangs the guest's boot, and a few thousand frames a second need no more.
#
#   wan_box.sh prepare CACHE                        → CACHE/vmlinuz, CACHE/initrd.gz (once)
#   wan_box.sh up CACHE DIR TAG RATE DELAY I [I …]  host I's link (netns_hosts.sh's hv<TAG><I>)
#                                                    goes through the guest: netem RATE DELAY
#   wan_box.sh down DIR TAG I [I …]
#
# Host I's veth end leaves the test bridge for a bridge of its own, hw<TAG><I>, joined to the
# test bridge only through the guest: tap ta<TAG><I> (guest eth 2k) and tap tb<TAG><I> (eth 2k+1),
# which the guest bridges with netem on both. Needs root, qemu-system-x86 and
# busybox-static (scripts/setup.sh installs both); prepare fetches the kernel package with apt-get.
set -euo pipefail

die() { echo "wan_box: $*" >&2; exit 1; }

prepare() {
  local cache=$1
  local stamp; stamp=$(sha256sum "$0" | cut -c1-16)  # a changed script makes its guest anew
  [ -s "$cache/vmlinuz" ] && [ -s "$cache/initrd.gz" ] && [ "$(cat "$cache/stamp" 2>/dev/null)" = "$stamp" ] && return 0
  command -v busybox >/dev/null || die "busybox is missing; install busybox-static"
  local work; work=$(mktemp -d)
  local version
  kernel_version() { apt-cache depends linux-image-cloud-amd64 2>/dev/null | sed -n 's/.*Depends: linux-image-\(.*\)$/\1/p' | head -1; }
  version=$(kernel_version)
  [ -n "$version" ] || { apt-get update -qq >/dev/null 2>&1 || true; version=$(kernel_version); }
  [ -n "$version" ] || die "apt-cache knows no linux-image-cloud-amd64 (is Debian's registry reachable?)"
  (cd "$work" && apt-get download -q "linux-image-$version" >/dev/null 2>&1) ||
    die "cannot download linux-image-$version (apt-get download)"
  dpkg-deb -x "$work"/linux-image-"$version"_*.deb "$work/kernel"
  local modules="$work/kernel/lib/modules/$version"
  [ -f "$modules/kernel/net/sched/sch_netem.ko" ] || die "linux-image-$version has no sch_netem"

  local rd="$work/initrd"
  mkdir -p "$rd"/{bin,sbin,proc,sys,dev,lib/modules}
  cp /bin/busybox "$rd/bin/busybox"
  for applet in sh mount modprobe ip sleep cat echo reboot; do ln -s busybox "$rd/bin/$applet"; done
  # iproute2's tc, for netem (busybox's tc has none), with the libraries it loads.
  cp /usr/sbin/tc "$rd/sbin/tc"
  for lib in $(ldd /usr/sbin/tc | grep -o '/[^ ]*'); do mkdir -p "$rd$(dirname "$lib")"; cp -L "$lib" "$rd$lib"; done
  for m in drivers/virtio drivers/net/virtio_net.ko drivers/net/net_failover.ko net/core/failover.ko net/llc \
           net/802/stp.ko net/bridge/bridge.ko net/sched/sch_netem.ko; do
    [ -e "$modules/kernel/$m" ] || continue
    mkdir -p "$rd/lib/modules/$version/kernel/$(dirname "$m")"
    cp -r "$modules/kernel/$m" "$rd/lib/modules/$version/kernel/$(dirname "$m")/"
  done
  cp "$modules"/modules.{order,builtin} "$rd/lib/modules/$version/" 2>/dev/null || true
  busybox depmod -b "$rd" "$version"
  cat > "$rd/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
for arg in $(cat /proc/cmdline); do case $arg in wanbox.*=*) k=${arg#wanbox.}; eval "${k%%=*}=${k#*=}";; esac; done
for m in virtio_pci virtio_net bridge sch_netem; do modprobe $m || echo "wanbox: cannot load $m"; done
i=0
while [ $i -lt "$pairs" ]; do
  a=eth$((2 * i)) b=eth$((2 * i + 1)) br=br$i
  ip link add $br type bridge && ip link set $br up
  for dev in $a $b; do
    ip link set $dev master $br && ip link set $dev up
    /sbin/tc qdisc replace dev $dev root netem delay $delay rate $rate limit 100000 || echo "wanbox: tc failed on $dev"
  done
  i=$((i + 1))
done
echo "wanbox ready: $pairs links, netem delay $delay rate $rate"
sleep "${lifetime:-1800}"  # a guest its test never took down (the test was killed) goes by itself:
reboot -f   # QEMU runs with -no-reboot, so it exits
INIT
  chmod +x "$rd/init"
  mkdir -p "$cache"
  (cd "$rd" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$cache/initrd.gz.new"
  cp "$work/kernel/boot/vmlinuz-$version" "$cache/vmlinuz.new"
  mv "$cache/initrd.gz.new" "$cache/initrd.gz" && mv "$cache/vmlinuz.new" "$cache/vmlinuz"
  echo "$stamp" > "$cache/stamp"
  rm -rf "$work"
}

up() {
  local cache=$1 dir=$2 tag=$3 rate=$4 delay=$5; shift 5
  command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing; install qemu-system-x86"
  prepare "$cache"
  local nics=() k=0
  for i in "$@"; do
    ip link add "hw$tag$i" type bridge && ip link set "hw$tag$i" up
    ip link set "hv$tag$i" master "hw$tag$i"
    for side in a b; do ip tuntap add dev "t$side$tag$i" mode tap && ip link set "t$side$tag$i" up; done
    ip link set "ta$tag$i" master "hw$tag$i"
    ip link set "tb$tag$i" master "hb$tag"
    for side in a b; do
      nics+=(-netdev "tap,id=n$side$i,ifname=t$side$tag$i,script=no,downscript=no,vnet_hdr=on"
             -device "virtio-net-pci,netdev=n$side$i,mac=52:54:00:$(printf %02x "$k"):$(printf %02x "$i"):0$side")
    done
    k=$((k + 1))
  done
  rm -f "$dir/wanbox_$tag.log"
  qemu-system-x86_64 -accel tcg -m 192 -smp 1 -nodefaults -display none -no-reboot \
    -kernel "$cache/vmlinuz" -initrd "$cache/initrd.gz" \
    -append "console=ttyS0 quiet panic=-1 wanbox.pairs=$# wanbox.rate=$rate wanbox.delay=$delay" \
    -serial "file:$dir/wanbox_$tag.log" "${nics[@]}" -daemonize -pidfile "$dir/wanbox_$tag.pid"
  for _ in $(seq 600); do
    grep -q "wanbox ready" "$dir/wanbox_$tag.log" 2>/dev/null && return 0
    sleep 0.1
  done
  cat "$dir/wanbox_$tag.log" >&2
  die "the guest did not come up within 60 s"
}

down() {
  local dir=$1 tag=$2; shift 2
  if [ -f "$dir/wanbox_$tag.pid" ]; then
    local pid; pid=$(cat "$dir/wanbox_$tag.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done  # it lets go of its taps
    rm -f "$dir/wanbox_$tag.pid"
  fi
  for i in "$@"; do
    ip link set "hv$tag$i" master "hb$tag" 2>/dev/null || true
    for dev in "ta$tag$i" "tb$tag$i" "hw$tag$i"; do ip link del "$dev" 2>/dev/null || true; done
  done
}

case ${1:-} in
  prepare) prepare "$2" ;;
  up) down "$3" "$4" "${@:7}"; up "${@:2}" ;;
  down) down "${@:2}" ;;
  *) echo "usage: $0 prepare CACHE | up CACHE DIR TAG RATE DELAY I [I …] | down DIR TAG I [I …]" >&2; exit 2 ;;
esac
