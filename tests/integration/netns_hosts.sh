#!/usr/bin/env bash
# Makes (or removes) N test hosts on this machine: network namespaces joined by a bridge, each
# with its own address and an sshd that accepts one generated client key. Needs root, ip netns
# and /usr/sbin/sshd. Everything it makes is named after a tag and lives in DIR.
#   netns_hosts.sh up DIR TAG N [ipv6]   → DIR/hosts (one "address" per line), DIR/client_key
#   netns_hosts.sh down DIR TAG N
# With "ipv6" the hosts' addresses are IPv6 ones (fd00:213:X::10, ...), and nothing has IPv4 but lo.
set -euo pipefail
cmd=$1 dir=$2 tag=$3 n=$4 family=${5:-ipv4}
bridge="hb$tag"

# One /24 (or /64) per tag, the first from the tag's own that no route of this machine covers
# yet: two tags can share a first choice, and a test killed before its "down" leaves its bridge and
# route behind, so that a second bridge on the same subnet would be no route to its hosts.
free_subnet() {
  local base=$(( 16#${tag:0:2} % 200 + 20 )) k x
  for ((k = 0; k < 200; k++)); do
    x=$(( (base - 20 + k) % 200 + 20 ))
    if [ "$family" = ipv6 ]; then
      ip -6 route show | grep -q "^fd00:213:$x::/64 " || { echo "fd00:213:$x"; return; }
    else
      ip -4 route show | grep -q "^10\.213\.$x\.0/24 " || { echo "10.213.$x"; return; }
    fi
  done
  echo "netns_hosts: every 10.213.20-219 subnet is in use; remove stale hb* bridges (ip link del)" >&2
  return 1
}

# Each host answers on its sshd's port from this machine, or the set-up fails saying what the
# kernel knows of the way there (a host that cannot be reached would fail every case slowly).
check_reachable() {
  local addr=$1 k
  for ((k = 0; k < 50; k++)); do
    timeout 2 bash -c "exec 3<>/dev/tcp/$addr/22" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "netns_hosts: test host $addr does not answer on port 22 from this machine" >&2
  ip route get "$addr" >&2 || true
  ip -br addr >&2 || true
  return 1
}

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
  local subnet="" subnet6=""
  if [ "$family" = ipv6 ]; then subnet6=$(free_subnet); else subnet=$(free_subnet); fi
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
  while read -r addr; do check_reachable "$addr"; done < "$dir/hosts"
}

case $cmd in
  up) down; up ;;
  down) down ;;
  *) echo "usage: $0 up|down DIR TAG N" >&2; exit 2 ;;
esac
