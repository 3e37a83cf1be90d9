# Scenario 12: task management over iSER (no digests: iSER has none). The login of scenario 11,
# then fio random writes with crc32c verify on LUN 1 (memory) and LUN 0 (file) while sg_reset sends
# LOGICAL UNIT RESET (-d) and TARGET WARM RESET (-t) over the iSER connection: each TMF must
# succeed (sg_reset exits 0 only on Function Complete), the commands it ended are retried by the
# SCSI midlayer, fio must finish without an error or a verify mismatch, and the connection must
# survive (no iSER connection error in dmesg, still one session), logout.
# Variables: PORT (TCP portal) ISER_PORT IQN FIO_SECONDS
iser_login "$IQN" "$PORT" "$ISER_PORT"
s=$(session_of "$IQN" "$ISER_PORT") || fail "no session to $IQN at port $ISER_PORT"
d0=$(disk_of "$s" 0) || fail "no disk for LUN 0"
d1=$(disk_of "$s" 1) || fail "no disk for LUN 1"
echo "iSER session $s: LUN 0 $d0, LUN 1 $d1"

step "fio with crc32c verify on $d1 and $d0 while LUN and target resets arrive"
fio_verify tmf --size=64M --runtime="$FIO_SECONDS" \
  --name=mem --filename="$d1" --name=file --filename="$d0" &
fio_pid=$!
sleep 4
for i in 1 2 3; do
  step "sg_reset -d $d1 (LOGICAL UNIT RESET) #$i"
  run sg_reset -d "$d1"
  sleep 2
  step "sg_reset -d $d0 (LOGICAL UNIT RESET) #$i"
  run sg_reset -d "$d0"
  sleep 2
done
step "sg_reset -t $d1 (TARGET WARM RESET)"
run sg_reset -t "$d1"
wait "$fio_pid" || fail "fio under resets failed (its log above)"

step "the iSER connection survived"
dmesg | grep -iE "iser|connection[0-9]+:|reset" | tail -20
! dmesg | grep -q "detected conn error" || fail "the iSER connection failed during the resets"
[ "$(ls /sys/class/iscsi_session/ | wc -l)" -eq 1 ] || fail "not one session: $(ls /sys/class/iscsi_session/)"

logout "$IQN" "$ISER_PORT" iser
[ -z "$(ls /sys/class/iscsi_session/ 2>/dev/null)" ] || fail "sessions left after logout: $(ls /sys/class/iscsi_session/)"
step "scenario passed"
