# Scenario 15: ABORT TASK over SRP. add_target as in scenario 14; then the host freezes the file
# system under LUN 0's backing file (fsfreeze), so a 1 MiB O_DIRECT write blocks in the daemon's
# store. With a 3 s command timeout the kernel's SCSI error handler calls ib_srp's abort, which
# sends SRP_TSK_MGMT ABORT TASK ("Sending SRP abort for tag"); the host then thaws the file system,
# the task management answer must come within ib_srp's 5 s (else the error handler escalates to a
# LUN reset, "SRP reset_device called"), the retried write complete, the data read back equal, and
# the channel must not fail.
# Variables: SRP_PORT ID_EXT IOC_GUID
srp_start
srp_add_target "$ID_EXT" "$IOC_GUID" "$SRP_PORT"
d0=$(srp_disk 0) || fail "no disk for LUN 0"
echo "SRP disk: LUN 0 $d0"
stuck_write "$d0"
retry 90 sh -c 'dmesg | grep -q "Sending SRP abort for tag"' || fail "no SRP ABORT TASK sent within 90 s"
dmesg | grep -iE "srp abort|abort" | tail -5
step "host: thaw the store"
echo "JTARGET-GUEST-SIGNAL thaw-store"
wait "$STUCK_PID" || fail "the write did not complete after the abort"
dmesg | grep -iE "srp|abort|reset" | tail -10
! dmesg | grep -q "reset_device called" || fail "the abort did not succeed: the error handler reset the LUN"
! dmesg | grep -qE "failed (RECV|SEND|RDMA)|reconnect" || fail "the SRP channel failed"
run dd if="$d0" of=/tmp/readback bs=1M count=1 iflag=direct status=none
cmp /tmp/pattern /tmp/readback || fail "the block written around the abort reads back different"
echo "1 MiB read back equal"

srp_remove_target
step "scenario passed"
