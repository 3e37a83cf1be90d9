# Scenario ha-failover (issue 17): an HA pair of two daemons serving one target, each node's portal
# an ALUA target port group of its own (PORT: node a, group 1, the primary, active/optimized;
# PORT_B: node b, group 2, the secondary, standby). dm-multipath joins the two paths into one map
# (the same NAA designator through both nodes) grouped by ALUA priority; ext4 on the map and fio
# with crc32c verify on a file in it. Once fio is under way the guest prints
# "JTARGET-GUEST-SIGNAL kill-primary" and the host SIGKILLs node a: a's session holds its I/O for
# its replacement timeout (5 s) and then fails it, dm-multipath fails a's path and sends the I/O
# again through b's, which b, promoted through the witness meanwhile, serves as active/optimized
# (were no path usable, the map would queue the I/O: no_path_retry). fio must end
# with err=0 and no verify error, the file system must be clean (e2fsck -fn), and the guest prints
# fio's latency lines ("JTARGET-FIO-LAT ...") so that the host can quote the pause the I/O saw.
# Variables: PORT PORT_B IQN FIO_SECONDS
# no_path_retry 60: while no path is usable (a dead, b not promoted yet, or b's path failed on a
# standby answer and not reinstated yet) the map queues I/O for 60 s instead of failing it;
# bounded, so a pair that never fails over fails the scenario.
multipath_login "$IQN" "$PORT" "$PORT_B" 60
# an HA node's port groups are its role in the pair: INQUIRY offers implicit ALUA only (TPGS=1), so
# scsi_dh_alua sends no SET TARGET PORT GROUPS that would make the secondary's group active
runto /tmp/inq-b sg_inq "$db"
grep -q "TPGS=1 " /tmp/inq-b || fail "INQUIRY through node b does not say implicit ALUA only (TPGS=1)"
# sd sized the standby path's disk too (READ CAPACITY answered in standby): multipath can use it
[ "$(cat /sys/block/"$(basename "$db")"/size)" = "$(cat /sys/block/"$(basename "$da")"/size)" ] \
  || fail "the disk through node b ($db) is not the size of the one through node a ($da)"
# both paths in the map, each in its own priority group: alua prio 50 (active/optimized, node a)
# and 1 (standby, node b)
retry 30 sh -c "multipath -ll $map | grep -q 'prio=1 '" \
  || { multipath -ll "$map"; multipathd show paths; fail "the map has no standby path group (node b)"; }
multipath -ll "$map"
multipath -ll "$map" | grep -q "prio=50 status=active" || fail "no active path group with ALUA prio 50 (node a)"
multipath -ll "$map" | grep -q "$(basename "$db")" || fail "node b's path $db is not in the map"
dev=/dev/mapper/$map
[ -b "$dev" ] || fail "$dev missing"

step "ext4 on $dev"
run mkfs.ext4 -q -F "$dev"
mkdir -p /mnt/ha
run mount -t ext4 "$dev" /mnt/ha
# files written (and synced) through node a before the kill, read back through node b after it
checksum_files /mnt/ha 4

step "fio on ext4 through $dev, then the primary (node a) is killed"
# Two jobs, reported together: "ha" writes with crc32c verify (each 64 writes read back and
# checked, then the final pass), and "probe" writes 4 KiB 25 times a second without the
# interleaved reads. fio's statistics leave verify reads out, so a kill that falls while "ha" reads
# its backlog back would not show in its latencies; the probe's next write always waits out the
# failover, and its latency is the pause.
fio_verify failover --name=ha --filename=/mnt/ha/fio.data --size=96M --runtime="$FIO_SECONDS" \
  --name=probe --filename=/mnt/ha/probe.data --size=16M --bs=4k --iodepth=1 --rate_iops=25 \
  --verify_backlog=0 --runtime="$FIO_SECONDS" &
fio_pid=$!
sleep 6
kill -0 $fio_pid 2>/dev/null || fail "fio ended before the primary was killed (too fast to test a failover)"
echo "JTARGET-GUEST-SIGNAL kill-primary"
echo "kill asked at $(cut -d' ' -f1 /proc/uptime) s"
# the failover must happen under fio: a's connection error must show while fio still runs
seen=""
while kill -0 $fio_pid 2>/dev/null; do
  if [ -z "$seen" ] && dmesg | grep -q "connection$sa:0: detected conn error"; then
    seen=$(cut -d' ' -f1 /proc/uptime)
    echo "node a's connection lost at $seen s, fio still running"
  fi
  sleep 0.2
done
wait $fio_pid || exit 1
[ -n "$seen" ] || fail "fio ended before node a's connection was lost: the failover was not under I/O"
grep -E "^ *(slat|clat|lat) \((n|u|m)?sec\): .*max=" /tmp/fio-failover.log | sed 's/^ */JTARGET-FIO-LAT /'
grep -E "^ *(write|read): IOPS" /tmp/fio-failover.log | sed 's/^ */JTARGET-FIO-IOPS /'

step "after the failover"
multipath -ll "$map"
multipathd show paths format "%d %t %T %p"
dmesg | grep -E "alua|multipath|connection$sa:0|connection$sb:0" | tail -30
# the map's I/O went through node b: its path is the active, ready one
multipathd show paths format "%d %t %T" | grep -q "^$(basename "$db") *active *ready" \
  || fail "node b's path ($db) is not active and ready after the failover"
multipathd show paths format "%d %t %T" | grep -q "^$(basename "$da") *active *ready" \
  && fail "node a's path ($da) still shows active and ready with node a dead"
runto /tmp/rtpg sg_rtpg -d "$db"
# REPORT TARGET PORT GROUPS through b: its own group active/optimized, the dead node's unavailable
grep -A1 -i "target port group id : 0x2" /tmp/rtpg | grep -qi "active/optimized" \
  || fail "node b's port group (2) is not active/optimized after the failover"
grep -A1 -i "target port group id : 0x1" /tmp/rtpg | grep -qi "unavailable" \
  || fail "node a's port group (1) is not unavailable after the failover"

step "the files written through node a, read through node b"
drop_caches
check_files /mnt/ha

step "unmount, fsck"
run umount /mnt/ha
run e2fsck -fn "$dev"
run multipath -f "$map"
logout "$IQN" "$PORT_B"
step "scenario passed"
