# Scenario 11: the kernel's iSER initiator (ib_iser, open-iscsi's iface "iser") over the guest's
# siw0 against the daemon's iSER portal: SendTargets discovery over the TCP portal of the same
# target, login through iface iser to the iSER portal, 8 MiB written and read back with O_DIRECT
# (compared), then the filesystem checks of scenario 1 (ext4 on LUN 0, xfs on LUN 1, files with
# known checksums after a remount, fio random writes with crc32c verify on both, fsck clean), logout.
# Variables: PORT (TCP portal) ISER_PORT IQN FIO_SECONDS
iser_login "$IQN" "$PORT" "$ISER_PORT"
s=$(session_of "$IQN" "$ISER_PORT") || fail "no session to $IQN at port $ISER_PORT"
d0=$(disk_of "$s" 0) || fail "no disk for LUN 0"
d1=$(disk_of "$s" 1) || fail "no disk for LUN 1"
echo "iSER session $s: LUN 0 $d0, LUN 1 $d1"
dmesg | grep -i iser | tail -5

roundtrip_8mib "$d0" iSER

filesystem_checks "$d0" "$d1"

logout "$IQN" "$ISER_PORT" iser
[ -z "$(ls /sys/class/iscsi_session/ 2>/dev/null)" ] || fail "sessions left after logout: $(ls /sys/class/iscsi_session/)"
dmesg | grep -i iser | tail -10
step "scenario passed"
