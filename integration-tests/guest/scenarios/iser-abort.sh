# Scenario 13: ABORT TASK over iSER. The login of scenario 11; then the host freezes the file
# system under LUN 0's backing file (fsfreeze), so a 1 MiB O_DIRECT write blocks in the daemon's
# store while the connection keeps answering NOP-Outs. With a 3 s command timeout the kernel's
# SCSI error handler sends ABORT TASK for it (libiscsi's eh debug shows "aborting"); the host then
# thaws the file system, the abort must succeed, the retried write complete, the data read back
# equal, and the connection must not fail.
# Variables: PORT (TCP portal) ISER_PORT IQN
iser_login "$IQN" "$PORT" "$ISER_PORT"
s=$(session_of "$IQN" "$ISER_PORT") || fail "no session to $IQN at port $ISER_PORT"
d0=$(disk_of "$s" 0) || fail "no disk for LUN 0"
echo "iSER session $s: LUN 0 $d0"
echo 1 >/sys/module/libiscsi/parameters/debug_libiscsi_eh || fail "no libiscsi eh debug switch"
stuck_write "$d0"
retry 90 sh -c 'dmesg | grep -q "aborting \[sc"' || fail "no ABORT TASK sent within 90 s"
dmesg | grep -E "aborting|abort|conn error" | tail -5
step "host: thaw the store"
echo "JTARGET-GUEST-SIGNAL thaw-store"
wait "$STUCK_PID" || fail "the write did not complete after the abort"
retry 60 sh -c 'dmesg | grep -qE "abort success|abort failed|conn error"' || fail "the abort did not end within 60 s"
dmesg | grep -E "aborting|abort|reset|conn error" | tail -10
dmesg | grep -q "abort success" || fail "ABORT TASK did not succeed"
! dmesg | grep -q "detected conn error" || fail "the iSER connection failed"
run dd if="$d0" of=/tmp/readback bs=1M count=1 iflag=direct status=none
cmp /tmp/pattern /tmp/readback || fail "the block written around the abort reads back different"
echo "1 MiB read back equal"

logout "$IQN" "$ISER_PORT" iser
step "scenario passed"
