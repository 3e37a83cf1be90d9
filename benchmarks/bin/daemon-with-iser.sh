# Sourced by measure-allocation, iser-vs-tcp, srp-vs-iser and srp-vs-tcp: start_daemon WORK PORT IQN [RDMA] starts
# the daemon (JTARGET_JAVA_OPTS as given) on a 1 GiB memory LUN with a TCP portal on PORT; RDMA names
# the RDMA portals to add beside it, space-separated: `iser` an iSER portal on PORT+1, `srp` an SRP
# portal on PORT+2 (the target's SRP target port is $SRP_TARGET_PORT); with either, a 256 MiB
# pinned arena (unpinned if mlock is refused: the iwarp provider does not care). Sets $daemon to its
# pid and returns once the TCP portal listens.
SRP_TARGET_PORT=0x0123456789abcdef00a0b1c2d3e4f501
start_daemon() {
  local work=$1 port=$2 iqn=$3 rdma=" ${4:-} " pool="" rdma_portals="" portals="default" srp_id=""
  case "$rdma" in *" iser "*|*" srp "*) pool="buffer-pool: { pinned-size: 256MiB, pin: true }" ;; esac
  case "$rdma" in *" iser "*)
    rdma_portals+="  - { name: rdma, listen: 127.0.0.1:$((port + 1)), portal-group-tag: 2, transport: iser }"$'\n'
    portals+=", rdma" ;;
  esac
  case "$rdma" in *" srp "*)
    rdma_portals+="  - { name: srp, listen: 127.0.0.1:$((port + 2)), portal-group-tag: 3, transport: srp }"$'\n'
    portals+=", srp"
    srp_id="    srp: { id-ext: ${SRP_TARGET_PORT:0:18}, ioc-guid: 0x${SRP_TARGET_PORT:18} }" ;;
  esac
  cat > "$work/jt.yaml" <<CONFIG
daemon:
  state-dir: $work/state
  $pool
portals:
  - { name: default, listen: 127.0.0.1:$port }
$rdma_portals
backstores:
  - { name: ram0, type: memory, size: 1GiB }
targets:
  - iqn: $iqn
    portals: [$portals]
    luns: [ { lun: 0, backstore: ram0 } ]
    acl: ["*"]
$srp_id
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
