# Scenario 14: the kernel's SRP initiator (ib_srp over rdma_cm) on the guest's siw0 against the
# daemon's SRP portal (issue 16). A login with a bare dest= carries zero identifiers and must be
# refused (the target serves no such port: SRP_LOGIN_REJ); then add_target with the target's
# id_ext and ioc_guid attaches LUN 0 (file) and LUN 1 (memory) as SCSI disks; 8 MiB written and read
# back with O_DIRECT, the filesystem checks of scenario 1 (ext4 and xfs, checksummed files, fio with
# crc32c verify, fsck clean), a persistent reservation whose READ FULL STATUS names the initiator by
# its SRP TransportID, a LOGICAL UNIT RESET (sg_reset), and the target removed (ib_srp disconnects).
# Variables: SRP_PORT ID_EXT IOC_GUID FIO_SECONDS
srp_start
step "a login without target identifiers is refused"
if echo "dest=$HOST:$SRP_PORT" >"$SRP_PORT_DIR/add_target" 2>/tmp/add-bare; then
  fail "add_target with a bare dest= succeeded: the target accepted zero identifiers"
fi
cat /tmp/add-bare
dmesg | grep -i "srp" | tail -3

srp_add_target "$ID_EXT" "$IOC_GUID" "$SRP_PORT"
d0=$(srp_disk 0) || fail "no disk for LUN 0"
d1=$(srp_disk 1) || fail "no disk for LUN 1"
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

srp_remove_target
[ ! -b "$d0" ] || fail "$d0 is still there after the target was removed"
dmesg | grep -i srp | tail -10
step "scenario passed"
