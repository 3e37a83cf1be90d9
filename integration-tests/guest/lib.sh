# Shell functions for the guest scenarios (sourced: GuestVm puts the scenario's variables, then this
# file, then the scenario script into the one script the guest runs). The guest has no systemd and
# no udev: everything a service would do is done here, by hand. Every step that waits is bounded.
# A failed check calls fail, which prints "GUEST-CHECK-FAILED: <what>" and exits 1.
set -u
HOST=10.0.2.2 # the host's loopback as QEMU's user-mode network shows it

fail() {
  echo "GUEST-CHECK-FAILED: $*"
  echo "--- dmesg tail ---"
  dmesg | tail -40
  exit 1
}

# step NAME: prints a marker with the guest's uptime, so the log shows where time goes.
step() {
  echo "=== [$(cut -d' ' -f1 /proc/uptime) s] $*"
}

# run CMD...: echoes the command, runs it, fails the scenario on a non-zero exit.
run() {
  echo "+ $*"
  "$@" || fail "'$*' exited with $?"
}

# runto FILE CMD...: like run, and the output also goes to FILE (for the checks that follow).
runto() {
  local file=$1
  shift
  echo "+ $*"
  "$@" >"$file" 2>&1
  local rc=$?
  cat "$file"
  [ $rc -eq 0 ] || fail "'$*' exited with $rc"
}

# retry SECONDS CMD...: runs CMD until it succeeds, for at most SECONDS seconds of guest uptime.
retry() {
  local deadline
  deadline=$(($(cut -d. -f1 /proc/uptime) + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$(cut -d. -f1 /proc/uptime)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

# iscsi_start: a unique initiator name, the kernel modules (no udev coldplug), iscsid in the
# foreground of a background job (no systemd).
iscsi_start() {
  step "start iscsid"
  echo "InitiatorName=iqn.2026-11.org.jtarget.guest:$(cat /proc/sys/kernel/random/uuid | cut -c1-8)" \
    >/etc/iscsi/initiatorname.iscsi
  cat /etc/iscsi/initiatorname.iscsi
  run modprobe -a iscsi_tcp sd_mod sg crc32c_generic
  mkdir -p /run/lock/iscsi /var/lib/iscsi
  iscsid -f >/tmp/iscsid.log 2>&1 &
  # iscsiadm exits 21 (no objects) once iscsid answers, 20 or others before
  retry 20 sh -c 'iscsiadm -m session >/dev/null 2>&1; [ $? -eq 21 ] || [ $? -eq 0 ]' \
    || { cat /tmp/iscsid.log; fail "iscsid did not start"; }
}

# discover PORT IQN: SendTargets discovery on HOST:PORT must list IQN. The target advertises its
# own address (127.0.0.1), which the guest cannot reach, so the records discovery made are
# deleted and node_new makes the right ones.
discover() {
  local port=$1 iqn=$2 out
  step "discovery (SendTargets) on $HOST:$port"
  out=$(iscsiadm -m discovery -t sendtargets -p "$HOST:$port" 2>&1) || fail "discovery failed: $out"
  echo "$out"
  echo "$out" | grep -q " $iqn\$" || fail "discovery did not list $iqn"
  iscsiadm -m node -T "$iqn" -o delete >/dev/null 2>&1 || true
}

# node_new IQN PORT TPGT [IFACE]: a node record for IQN at HOST:PORT.
node_new() {
  local iqn=$1 port=$2 tpgt=$3 iface=${4:-default}
  run iscsiadm -m node -T "$iqn" -p "$HOST:$port,$tpgt" -I "$iface" -o new >/dev/null
}

# node_set IQN PORT NAME VALUE [IFACE]: one setting of a node record.
node_set() {
  local iqn=$1 port=$2 name=$3 value=$4 iface=${5:-}
  run iscsiadm -m node -T "$iqn" -p "$HOST:$port" ${iface:+-I "$iface"} -o update -n "$name" -v "$value"
}

# login IQN PORT [IFACE]
login() {
  local iqn=$1 port=$2 iface=${3:-}
  step "login to $iqn at $HOST:$port${iface:+ through $iface}"
  run iscsiadm -m node -T "$iqn" -p "$HOST:$port" ${iface:+-I "$iface"} --login
}

# logout IQN PORT [IFACE]
logout() {
  local iqn=$1 port=$2 iface=${3:-}
  step "logout from $iqn at $HOST:$port"
  run iscsiadm -m node -T "$iqn" -p "$HOST:$port" ${iface:+-I "$iface"} --logout
}

# session_of IQN PORT [INITIATOR]: prints the session number of the (only) session matching.
session_of() {
  local iqn=$1 port=$2 initiator=${3:-} s
  for s in /sys/class/iscsi_session/session*; do
    [ "$(cat "$s/targetname")" = "$iqn" ] || continue
    [ -z "$initiator" ] || [ "$(cat "$s/initiatorname")" = "$initiator" ] || continue
    grep -q "^$port\$" "$s"/device/connection*/iscsi_connection/connection*/persistent_port 2>/dev/null \
      || continue
    basename "$s" | sed 's/session//'
    return 0
  done
  return 1
}

# disk_of SESSION LUN: waits (30 s) for the SCSI disk of LUN in that session, prints /dev/sdX.
disk_of() {
  await_disk "/sys/class/iscsi_session/session$1/device/target*/*:*:*:$2/block/*"
}

# await_disk GLOB: waits (30 s) until GLOB (a sysfs path of a SCSI device's block/<name>) names a
# block device, prints /dev/<name>.
await_disk() {
  local glob=$1 i=0 d
  while [ $i -lt 150 ]; do
    for d in $glob; do
      [ -e "$d" ] && [ -b "/dev/$(basename "$d")" ] && { echo "/dev/$(basename "$d")"; return 0; }
    done
    i=$((i + 1))
    sleep 0.2
  done
  return 1
}

# roundtrip_8mib DISK LABEL: 8 MiB of random data written with O_DIRECT and read back equal.
roundtrip_8mib() {
  step "8 MiB written with O_DIRECT and read back"
  head -c 8388608 /dev/urandom >/tmp/pattern
  run dd if=/tmp/pattern of="$1" bs=1M oflag=direct status=none
  run dd if="$1" of=/tmp/readback bs=1M count=8 iflag=direct status=none
  cmp /tmp/pattern /tmp/readback || fail "the 8 MiB read back over $2 differ from what was written"
  echo "8 MiB read back equal"
}

# multipath_login IQN PORT_A PORT_B NO_PATH_RETRY: dm-multipath over two portals of IQN, PORT_A
# (portal group 1) and PORT_B (group 2): iscsid, the multipath and ALUA modules, udevd (multipath
# needs its device properties), a multipath.conf that groups JTARGET paths by ALUA priority and
# queues I/O for NO_PATH_RETRY checker intervals (1 s) while no path is usable, discovery on
# PORT_A, a login through each portal (a session that lost its connection gives its I/O back to
# multipath after 5 s; NOP-Outs notice a silent one), then multipathd and its map (30 s at most).
# Sets sa and sb (the sessions), da and db (their disks) and map (the map's name).
multipath_login() {
  local iqn=$1 port_a=$2 port_b=$3 no_path_retry=$4 p port
  iscsi_start
  run modprobe -a dm_multipath dm_round_robin scsi_dh_alua
  step "udevd (multipath needs its device properties)"
  /lib/systemd/systemd-udevd --daemon || fail "systemd-udevd did not start"
  cat >/etc/multipath.conf <<CONF
defaults {
    user_friendly_names no
    find_multipaths off
    polling_interval 1
}
blacklist {
    devnode "^vd[a-z]"
}
devices {
    device {
        vendor "JTARGET"
        product ".*"
        path_grouping_policy group_by_prio
        prio alua
        hardware_handler "1 alua"
        path_checker tur
        failback immediate
        no_path_retry $no_path_retry
    }
}
CONF
  discover "$port_a" "$iqn"
  for p in "$port_a,1" "$port_b,2"; do
    port=${p%,*}
    node_new "$iqn" "$port" "${p#*,}"
    node_set "$iqn" "$port" node.session.timeo.replacement_timeout 5
    node_set "$iqn" "$port" node.conn[0].timeo.noop_out_interval 1
    node_set "$iqn" "$port" node.conn[0].timeo.noop_out_timeout 2
    login "$iqn" "$port"
  done
  sa=$(session_of "$iqn" "$port_a") || fail "no session through $port_a"
  sb=$(session_of "$iqn" "$port_b") || fail "no session through $port_b"
  da=$(disk_of "$sa" 0) || fail "no disk through $port_a"
  db=$(disk_of "$sb" 0) || fail "no disk through $port_b"
  echo "path A (port $port_a, group 1): $da; path B (port $port_b, group 2): $db"
  udevadm trigger --subsystem-match=block --action=add
  udevadm settle --timeout=30

  step "multipathd"
  run multipathd
  retry 30 sh -c 'dmsetup ls --target multipath | grep -qv "No devices"' \
    || { multipath -v3 2>&1 | tail -40; fail "no multipath map"; }
  map=$(dmsetup ls --target multipath | awk '{print $1; exit}')
}

# sg_of /dev/sdX: the SCSI generic node of a disk.
sg_of() {
  local d
  d=$(ls /sys/block/"$(basename "$1")"/device/scsi_generic/ 2>/dev/null | head -1)
  [ -n "$d" ] && echo "/dev/$d"
}

# digest_of SESSION: "HeaderDigest DataDigest" as negotiated on the session (iscsiadm's view).
digest_of() {
  iscsiadm -m session -r "$1" -P 2 | awk '$1 == "HeaderDigest:" {h = $2} $1 == "DataDigest:" {d = $2} END {print h, d}'
}

# fio_verify LABEL FIO_ARGS...: fio random writes with crc32c verify (interleaved verify reads,
# so reads and writes mix, then a final verify pass); fails on any error. FIO_ARGS name the jobs
# (--name=... --filename=... --size=...); the options here apply to all of them. Block sizes up to
# 256 KiB: QEMU's user network stalls 5 s on some 1 MiB requests (no TCP window scaling).
fio_verify() {
  local label=$1
  shift
  step "fio $label"
  fio --ioengine=libaio --direct=1 --rw=randwrite --bsrange=4k-256k --iodepth=16 \
    --verify=crc32c --verify_backlog=64 --verify_fatal=1 --do_verify=1 --randrepeat=0 \
    --group_reporting "$@" >/tmp/fio-"$label".log 2>&1
  local rc=$?
  grep -E "err=|(read|write): IOPS|verify|bad|crc" /tmp/fio-"$label".log | head -20
  [ $rc -eq 0 ] || { cat /tmp/fio-"$label".log; fail "fio $label exited with $rc"; }
  grep -q "err= 0" /tmp/fio-"$label".log || { cat /tmp/fio-"$label".log; fail "fio $label reported an error"; }
  ! grep -q -i "verify.*bad\|bad magic\|crc32c: verify failed" /tmp/fio-"$label".log || fail "fio $label: verify error"
}

# checksum_files DIR COUNT: writes COUNT files of random data (1..4 MiB) and their SHA-256 list.
checksum_files() {
  local dir=$1 count=$2 i
  for i in $(seq 1 "$count"); do
    head -c $(( (i % 4 + 1) * 1048576 )) /dev/urandom >"$dir/file$i" || fail "write $dir/file$i"
  done
  (cd "$dir" && sha256sum file* >/tmp/"$(basename "$dir")".sha256)
  sync
}

# check_files DIR: the files match the list checksum_files wrote.
check_files() {
  local dir=$1
  (cd "$dir" && sha256sum -c --quiet /tmp/"$(basename "$dir")".sha256) || fail "checksums differ in $dir"
  echo "checksums of $(wc -l </tmp/"$(basename "$dir")".sha256) files in $dir match"
}

# filesystem_checks EXT4_DISK XFS_DISK: mkfs.ext4 and mkfs.xfs, 8 files of known checksums on each,
# read back after a remount with the page cache dropped, fio random writes with crc32c verify on
# both at once (FIO_SECONDS), the files again, unmount, fsck clean (e2fsck -fn, xfs_repair -n).
filesystem_checks() {
  local ext4=$1 xfs=$2
  step "mkfs.ext4 $ext4, mkfs.xfs $xfs"
  run mkfs.ext4 -q -F "$ext4"
  run mkfs.xfs -q -f "$xfs"
  mkdir -p /mnt/ext4 /mnt/xfs
  run mount -t ext4 "$ext4" /mnt/ext4
  run mount -t xfs "$xfs" /mnt/xfs

  step "files with known checksums"
  checksum_files /mnt/ext4 8
  checksum_files /mnt/xfs 8
  run umount /mnt/ext4
  run umount /mnt/xfs
  drop_caches
  run mount -t ext4 "$ext4" /mnt/ext4
  run mount -t xfs "$xfs" /mnt/xfs
  check_files /mnt/ext4
  check_files /mnt/xfs

  step "fio on both file systems"
  fio_verify fs --size=48M --runtime="$FIO_SECONDS" --iodepth=8 \
    --name=ext4 --filename=/mnt/ext4/fio.data --name=xfs --filename=/mnt/xfs/fio.data
  check_files /mnt/ext4
  check_files /mnt/xfs

  step "unmount, fsck"
  run umount /mnt/ext4
  run umount /mnt/xfs
  run e2fsck -fn "$ext4"
  run xfs_repair -n "$xfs"
}

# drop_caches: the next read goes to the target, not the guest's page cache.
drop_caches() {
  sync
  echo 3 >/proc/sys/vm/drop_caches
}

# rdma_start: the kernel's RDMA stack with a software iWARP device: siw (built by build-image,
# bookworm's kernel lacks it) bound to eth0 as siw0, rdma_rxe loaded beside it (not linked: two
# devices on one address would leave rdma_cm to pick either), and what the tools see printed.
rdma_start() {
  step "load siw and rdma_rxe, add siw0 on eth0"
  modinfo -F filename siw >/dev/null 2>&1 || fail "no siw module: build-image did not build siw.ko"
  run modprobe -a siw rdma_rxe rdma_cm rdma_ucm ib_uverbs
  run rdma link add siw0 type siw netdev eth0
  runto /tmp/rdma-link rdma link
  grep -q "siw0/1 state ACTIVE" /tmp/rdma-link || fail "siw0 is not ACTIVE in 'rdma link'"
  runto /tmp/ibv-devices ibv_devices
  grep -qw siw0 /tmp/ibv-devices || fail "ibv_devices does not list siw0 (no siw verbs provider in ibverbs-providers?)"
}

# siw_p2p_start MODULE: rdma_start, then siw replaced by one of build-image's variants in
# /usr/local/lib/jtarget (siw-p2p: siw with its constant peer_to_peer set to true, so its active
# side asks for RFC 6581 peer-to-peer mode offering zero-length RDMA WRITE and READ as the
# ready-to-receive message; siw-p2p-read: the same offering only the READ), siw0 added again on eth0.
siw_p2p_start() {
  local ko=/usr/local/lib/jtarget/$1.ko
  rdma_start
  step "replace siw by $1.ko, add siw0 again"
  [ -f "$ko" ] || fail "no $ko: build-image did not build it"
  run rdma link delete siw0
  run rmmod siw
  run insmod "$ko"
  run rdma link add siw0 type siw netdev eth0
  runto /tmp/rdma-link rdma link
  grep -q "siw0/1 state ACTIVE" /tmp/rdma-link || fail "siw0 ($1) is not ACTIVE in 'rdma link'"
}

# iser_login IQN TCP_PORT ISER_PORT: the RDMA stack (rdma_start) and iscsid up, ib_iser loaded,
# SendTargets discovery over the target's TCP portal, a node record for HOST:ISER_PORT (portal
# group 2) through open-iscsi's iface iser (created if this open-iscsi lacks it), login, and a
# check that the session runs over the iser transport.
iser_login() {
  local iqn=$1 port=$2 iser_port=$3
  rdma_start
  iscsi_start
  run modprobe ib_iser
  discover "$port" "$iqn"
  step "iface iser, node record for $HOST:$iser_port through it"
  if ! iscsiadm -m iface -I iser >/dev/null 2>&1; then
    run iscsiadm -m iface -I iser -o new
    run iscsiadm -m iface -I iser -o update -n iface.transport_name -v iser
  fi
  iscsiadm -m iface -I iser | grep -E "iface.(iscsi_ifacename|transport_name)"
  node_new "$iqn" "$iser_port" 2 iser
  login "$iqn" "$iser_port" iser
  iscsiadm -m session -P 1 | grep -E "Iface Transport|Current Portal|iSCSI Connection State"
  iscsiadm -m session -P 1 | grep -q "Iface Transport: iser" || fail "the session to $iqn does not run over iser"
}

# srp_start: the RDMA stack (rdma_start), ib_srp and the disk driver loaded; sets SRP_PORT_DIR,
# the ib_srp port of siw0 (where add_target is).
srp_start() {
  rdma_start
  run modprobe -a ib_srp sd_mod sg # no udev coldplug: the disk driver is loaded by hand
  SRP_PORT_DIR=$(ls -d /sys/class/infiniband_srp/srp-siw0-* 2>/dev/null | head -1)
  [ -n "$SRP_PORT_DIR" ] || fail "ib_srp made no port for siw0 (/sys/class/infiniband_srp: $(ls /sys/class/infiniband_srp))"
}

# srp_add_target ID_EXT IOC_GUID PORT: after srp_start, add_target for the target port
# ID_EXT:IOC_GUID at HOST:PORT; sets SRP_RPORT (the remote port's sysfs directory) and SRP_HOST
# (its SCSI host).
srp_add_target() {
  step "add_target id_ext=$1,ioc_guid=$2,dest=$HOST:$3"
  echo "id_ext=$1,ioc_guid=$2,dest=$HOST:$3" >"$SRP_PORT_DIR/add_target" \
    || { dmesg | tail -20; fail "add_target failed"; }
  SRP_RPORT=$(ls -d /sys/class/srp_remote_ports/port-* 2>/dev/null | head -1)
  [ -n "$SRP_RPORT" ] || fail "no SRP remote port after add_target"
  SRP_HOST=$(basename "$SRP_RPORT" | sed 's/^port-//; s/:.*//')
  echo "SRP remote port $SRP_RPORT: SCSI host $SRP_HOST, port id $(cat "$SRP_RPORT/port_id")"
}

# srp_disk LUN: waits (30 s) for the disk of LUN on the SRP host, prints /dev/sdX.
srp_disk() {
  await_disk "/sys/bus/scsi/devices/$SRP_HOST:0:0:$1/block/*"
}

# srp_remove_target: deletes the SRP remote port (ib_srp disconnects) and checks it is gone.
srp_remove_target() {
  step "remove the target"
  echo 1 >"$SRP_RPORT/delete" || fail "delete of $SRP_RPORT failed"
  retry 10 sh -c "[ ! -e '$SRP_RPORT' ]" || fail "the SRP remote port is still there after delete"
}

# stuck_write DISK: a 3 s command timeout on DISK, the host asked to freeze the store behind it,
# then a 1 MiB O_DIRECT write of /tmp/pattern (random) in the background that blocks in the
# daemon's store until the host thaws it; sets STUCK_PID to the write's pid.
stuck_write() {
  echo 3 >/sys/block/"$(basename "$1")"/device/timeout
  head -c 1048576 /dev/urandom >/tmp/pattern
  step "host: freeze the store of $1"
  echo "JTARGET-GUEST-SIGNAL freeze-store"
  sleep 3
  step "1 MiB O_DIRECT write to $1: blocks in the store, times out, ABORT TASK"
  dd if=/tmp/pattern of="$1" bs=1M count=1 oflag=direct status=none &
  STUCK_PID=$!
}

# guest_address: the guest's IPv4 address on eth0 (10.0.2.15 under QEMU's user-mode network).
guest_address() {
  ip -4 -o addr show dev eth0 | awk '{print $4}' | cut -d/ -f1 | head -1
}

# await_listen PORT: waits (10 s at most) until a TCP socket listens on PORT; siw's listener is a
# kernel socket, which ss shows too.
await_listen() {
  retry 10 sh -c "ss -ltnH | grep -q ':$1 '" || fail "nothing listens on TCP port $1 after 10 s"
}

# rping_pings FILE PREFIX COUNT: FILE holds COUNT lines of rping -v output starting with PREFIX
# ("ping data: " for a client, "server ping data: " for a server), the last of ping COUNT-1.
rping_pings() {
  local file=$1 prefix=$2 count=$3 n
  n=$(grep -c "^${prefix}rdma-ping-" "$file")
  [ "$n" -eq "$count" ] || fail "rping printed $n pings, not $count ($file)"
  grep -q "^${prefix}rdma-ping-$((count - 1)): " "$file" || fail "the last ping printed is not ping $((count - 1))"
  echo "$count pings of rping data seen ($prefix...)"
}

# rping_server_done PID LOG COUNT: the background rping -s PID (its output in LOG) must exit 0 after
# its client's COUNT pings, each of them printed (-v).
rping_server_done() {
  local pid=$1 log=$2 count=$3 status
  wait "$pid"
  status=$?
  cat "$log"
  [ "$status" -eq 0 ] || fail "rping -s exited with $status (124: no client finished in time)"
  rping_pings "$log" "server ping data: " "$count"
}
