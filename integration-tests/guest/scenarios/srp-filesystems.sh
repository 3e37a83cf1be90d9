# Scenario 14: the kernel's SRP initiator (ib_srp over rdma_cm) on the guest's siw0 against the
# daemon's SRP portal (issue 16). A login with a bare dest= carries zero identifiers and must be
# refused (the target serves no such port: SRP_LOGIN_REJ); then add_target with the target's
# id_ext and ioc_guid attaches LUN 0 (file) and LUN 1 (memory) as SCSI disks; 8 MiB written and read
# back with O_DIRECT, the filesystem checks of scenario 1 (ext4 and xfs, checksummed files, fio with
# crc32c verify, fsck clean), a persistent reservation whose READ FULL STATUS names the initiator by
# its SRP TransportID, a LOGICAL UNIT RESET (sg_reset), and the target removed (ib_srp disconnects).
# Variables: SRP_PORT ID_EXT IOC_GUID FIO_SECONDS
rdma_start
run modprobe -a ib_srp sd_mod sg # no udev coldplug: the disk driver is loaded by hand
port_dir=$(ls -d /sys/class/infiniband_srp/srp-siw0-* 2>/dev/null | head -1)
[ -n "$port_dir" ] || fail "ib_srp made no port for siw0 (/sys/class/infiniband_srp: $(ls /sys/class/infiniband_srp))"
echo "ib_srp port: $port_dir"

step "a login without target identifiers is refused"
if echo "dest=$HOST:$SRP_PORT" >"$port_dir/add_target" 2>/tmp/add-bare; then
  fail "add_target with a bare dest= succeeded: the target accepted zero identifiers"
fi
cat /tmp/add-bare
dmesg | grep -i "srp" | tail -3

step "add_target id_ext=$ID_EXT,ioc_guid=$IOC_GUID,dest=$HOST:$SRP_PORT"
echo "id_ext=$ID_EXT,ioc_guid=$IOC_GUID,dest=$HOST:$SRP_PORT" >"$port_dir/add_target" \
  || { dmesg | tail -20; fail "add_target failed"; }
rport=$(ls -d /sys/class/srp_remote_ports/port-* 2>/dev/null | head -1)
[ -n "$rport" ] || fail "no SRP remote port after add_target"
h=$(basename "$rport" | sed 's/^port-//; s/:.*//')
echo "SRP remote port $rport: SCSI host $h, port id $(cat "$rport/port_id")"

d0=$(await_disk "/sys/bus/scsi/devices/$h:0:0:0/block/*") || fail "no disk for LUN 0"
d1=$(await_disk "/sys/bus/scsi/devices/$h:0:0:1/block/*") || fail "no disk for LUN 1"
echo "SRP disks: LUN 0 $d0, LUN 1 $d1"
dmesg | grep -i srp | tail -5

roundtrip_8mib "$d0" SRP

filesystem_checks "$d0" "$d1"

step "persistent reservation: READ FULL STATUS names the initiator by its SRP TransportID"
run sg_persist --out --register --param-sark=0x5e1 "$d1"
run sg_persist --out --reserve --param-rk=0x5e1 --prout-type=1 "$d1"
runto /tmp/full sg_persist --in --read-full-status "$d1"
grep -q "RDMA initiator port identifier" /tmp/full || fail "READ FULL STATUS shows no SRP TransportID" # sg3_utils' name for protocol 4
run sg_persist --out --release --param-rk=0x5e1 --prout-type=1 "$d1"
run sg_persist --out --register --param-rk=0x5e1 --param-sark=0 "$d1"

step "sg_reset -d $d1 (LOGICAL UNIT RESET over SRP_TSK_MGMT)"
run sg_reset -d "$d1"
run dd if="$d1" of=/dev/null bs=1M count=4 iflag=direct status=none

step "remove the target"
echo 1 >"$rport/delete" || fail "delete of $rport failed"
i=0
while [ -e "$rport" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
[ ! -e "$rport" ] || fail "the SRP remote port is still there after delete"
[ ! -b "$d0" ] || fail "$d0 is still there after the target was removed"
dmesg | grep -i srp | tail -10
step "scenario passed"
