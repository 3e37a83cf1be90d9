# Sourced by measure-allocation and iser-vs-tcp: start_daemon WORK PORT IQN [iser] starts the
# daemon (JTARGET_JAVA_OPTS as given) on a 1 GiB memory LUN with a TCP portal on PORT and, with
# `iser`, an iSER portal on PORT+1 and a 256 MiB pinned arena (unpinned if mlock is refused: the
# iwarp provider does not care); sets $daemon to its pid and returns once the TCP portal listens.
start_daemon() {
  local work=$1 port=$2 iqn=$3 pool="" iser_portal="" portals="[default]"
  if [ "${4:-}" = iser ]; then
    pool="buffer-pool: { pinned-size: 256MiB, pin: true }"
    iser_portal="  - { name: rdma, listen: 127.0.0.1:$((port + 1)), portal-group-tag: 2, transport: iser }"
    portals="[default, rdma]"
  fi
  cat > "$work/jt.yaml" <<CONFIG
daemon:
  state-dir: $work/state
  $pool
portals:
  - { name: default, listen: 127.0.0.1:$port }
$iser_portal
backstores:
  - { name: ram0, type: memory, size: 1GiB }
targets:
  - iqn: $iqn
    portals: $portals
    luns: [ { lun: 0, backstore: ram0 } ]
    acl: ["*"]
CONFIG
  "$root/target-daemon/bin/jtargetd" --config "$work/jt.yaml" > "$work/daemon.log" 2>&1 &
  daemon=$!
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.2
  done
  echo "daemon did not start: see $work/daemon.log" >&2
  return 1
}
