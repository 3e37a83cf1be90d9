# Not a test: the fio figures of docs/performance.md, seen by the kernel initiator inside the
# guest (run by hand: see docs/performance.md "Inside a QEMU guest"). 4 KiB random reads at queue
# depth 32, 4 KiB random writes at depth 32 with crc32c verify reads interleaved, and 256 KiB sequential reads and writes at depth 8, on the
# raw disk of LUN 0, each for FIO_SECONDS after the LUN was filled once.
# Variables: PORT IQN FIO_SECONDS, and ISER_PORT to measure over iSER (ib_iser over the guest's siw;
# discovery on PORT, login to the target's iSER portal at ISER_PORT) instead of iscsi_tcp.
if [ -n "${ISER_PORT:-}" ]; then
  iser_login "$IQN" "$PORT" "$ISER_PORT"
  login_port=$ISER_PORT iface=iser
else
  iscsi_start
  discover "$PORT" "$IQN"
  node_new "$IQN" "$PORT" 1
  login "$IQN" "$PORT"
  login_port=$PORT iface=
fi
d=$(disk_of "$(session_of "$IQN" "$login_port")" 0) || fail "no disk for $IQN"
size=128M
common="--ioengine=libaio --direct=1 --filename=$d --size=$size --group_reporting --randrepeat=0"
step "fill $size"
run fio --name=fill $common --rw=write --bs=256k --iodepth=8 --output=/dev/null
for job in "randread 4k 32" "randwrite 4k 32 --verify=crc32c --verify_backlog=64" \
    "read 256k 8" "write 256k 8"; do
  set -- $job
  rw=$1 bs=$2 qd=$3
  shift 3
  step "fio $rw bs=$bs iodepth=$qd $*"
  fio --name="$rw-$bs-qd$qd" $common --rw="$rw" --bs="$bs" --iodepth="$qd" --time_based --runtime="$FIO_SECONDS" \
    "$@" >/tmp/fio.log 2>&1 || { cat /tmp/fio.log; fail "fio $rw"; }
  grep -E "IOPS=|clat \(|lat \(|err=" /tmp/fio.log | grep -v slat
  echo "FIO-FIGURE $rw $bs qd$qd $(grep -oE 'IOPS=[^,]+, BW=[^ ]+' /tmp/fio.log | head -1) $(grep -E '^ +clat \((u|m)sec\)' /tmp/fio.log | head -1 | sed 's/  */ /g')"
done
logout "$IQN" "$login_port" $iface
