#!/usr/bin/env bash
# Makes (or removes) N test hosts on this machine: network namespaces joined by a bridge, each
# with its own address and an sshd that accepts one generated client key. Needs root, ip netns
# and /usr/sbin/sshd. Everything it makes is named after a tag and lives in DIR.
#   netns_hosts.sh up DIR TAG N [ipv6]   → DIR/hosts (one "address" per line), DIR/client_key
#   netns_hosts.sh down DIR TAG N
# With "ipv6" the hosts' addresses are IPv6 ones (fd00:213:X::10, ...), and nothing has IPv4 but lo.
set -euo pipefail
cmd=$1 dir=$2 tag=$3 n=$4 family=${5:-ipv4}
subnet="10.213.$(( 16#${tag:0:2} % 200 + 20 ))"   # one /24 per tag
subnet6="fd00:213:$(( 16#${tag:0:2} % 200 + 20 ))"  # one /64 per tag
bridge="hb$tag"

down() {
  for ((i = 0; i < n; i++)); do
    [ -f "$dir/sshd_$i.pid" ] && kill "$(cat "$dir/sshd_$i.pid")" 2>/dev/null || true
    # Anything the test left in the namespace (agents, roles) goes with it.
    for pid in $(ip netns pids "hn$tag$i" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "hn$tag$i" 2>/dev/null || true
    ip link del "hv$tag$i" 2>/dev/null || true
  done
  ip link del "$bridge" 2>/dev/null || true
}

up() {
  mkdir -p "$dir" /run/sshd
  ssh-keygen -q -t ed25519 -N '' -f "$dir/client_key" -C hips-test
  cp "$dir/client_key.pub" "$dir/authorized_keys"
  ip link add "$bridge" type bridge
  if [ "$family" = ipv6 ]; then ip addr add "$subnet6::1/64" dev "$bridge" nodad; else ip addr add "$subnet.1/24" dev "$bridge"; fi
  ip link set "$bridge" up
  : > "$dir/hosts"
  for ((i = 0; i < n; i++)); do
    local ns="hn$tag$i" addr="$subnet.$((10 + i))" prefix=24 nodad=()
    if [ "$family" = ipv6 ]; then addr="$subnet6::$((10 + i))" prefix=64 nodad=(nodad); fi
    ip netns add "$ns"
    ip link add "hv$tag$i" type veth peer name "hp$tag$i"
    ip link set "hp$tag$i" netns "$ns"
    ip link set "hv$tag$i" master "$bridge"
    ip link set "hv$tag$i" up
    ip netns exec "$ns" ip addr add "$addr/$prefix" dev "hp$tag$i" "${nodad[@]}"
    ip netns exec "$ns" ip link set "hp$tag$i" up
    ip netns exec "$ns" ip link set lo up
    ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key_$i" -C "hips-test-host-$i"
    cat > "$dir/sshd_$i.conf" <<CONF
ListenAddress $addr
Port 22
HostKey $dir/host_key_$i
PidFile $dir/sshd_$i.pid
AuthorizedKeysFile $dir/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
CONF
    ip netns exec "$ns" /usr/sbin/sshd -f "$dir/sshd_$i.conf"
    echo "$addr" >> "$dir/hosts"
  done
}

case $cmd in
  up) down; up ;;
  down) down ;;
  *) echo "usage: $0 up|down DIR TAG N" >&2; exit 2 ;;
esac
