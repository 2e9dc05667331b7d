# The A/B root slots and the boot state (docs/UPDATES.md), shared by the
# initramfs (which picks the slot), the installer (update) and the trial
# watcher (trial). busybox sh; sourced after functions.sh.
#
# Slot A is partition 2, slot B partition 4 of the disk the kernel command
# line's root= names (always slot A's partition, so cmdline.txt never
# changes). The boot state is one 512-byte block at 2 MiB on that disk, in
# the gap between the MBR and the boot partition (no filesystem: the
# initramfs reads and writes it with dd, and a block is written whole or
# not at all):
#
#   HUSLOT1 active=2 trial=4 tried=0
#
# active  the partition of the slot that is known good (2 when the block is blank)
# trial   the partition of a slot installed and not yet proven, or 0
# tried   1 once the initramfs has started the trial slot: if the system
#         comes back with tried=1 and the trial still open, the trial
#         crashed, hung (the watchdog reset it) or lost power, and the
#         initramfs boots the active slot again
# failed  the partition of the last trial that did not prove itself, or 0
SLOT_A=2
SLOT_B=4
BOOTSTATE_OFFSET_BLOCKS=4096


slot_name() { [ "$1" = "$SLOT_B" ] && echo B || echo A; }
slot_other() { [ "$1" = "$SLOT_B" ] && echo "$SLOT_A" || echo "$SLOT_B"; }

# Reads the boot state of DISK into BS_ACTIVE, BS_TRIAL, BS_TRIED, BS_FAILED.
bootstate_read() {
	BS_ACTIVE=$SLOT_A BS_TRIAL=0 BS_TRIED=0 BS_FAILED=0
	line=$(dd if="$1" bs=512 skip="$BOOTSTATE_OFFSET_BLOCKS" count=1 2>/dev/null | tr -d '\000')
	# Its first line (the shell cuts it: no head started).
	line=${line%%"
"*}
	case "$line" in HUSLOT1\ *) ;; *) return 0 ;; esac
	for word in $line; do
		case "$word" in
			active=2|active=4) BS_ACTIVE=${word#*=} ;;
			trial=0|trial=2|trial=4) BS_TRIAL=${word#*=} ;;
			tried=0|tried=1) BS_TRIED=${word#*=} ;;
			failed=0|failed=2|failed=4) BS_FAILED=${word#*=} ;;
		esac
	done
}

# Writes the boot state of DISK: active trial tried failed (one block, synced).
# The line is one write of under 512 bytes into the pipe, so dd reads it
# whole; conv=sync pads it with zeros to the block.
bootstate_write() {
	echo "HUSLOT1 active=$2 trial=$3 tried=$4 failed=$5" |
		dd of="$1" bs=512 seek="$BOOTSTATE_OFFSET_BLOCKS" count=1 conv=sync,notrunc,fsync 2>/dev/null
}

# The initramfs: the partition number to boot from DISK, updating the
# boot state (a trial is started once; found started again, it failed).
slot_choose() {
	bootstate_read "$1"
	if [ "$BS_TRIAL" != 0 ] && [ "$BS_TRIAL" != "$BS_ACTIVE" ]; then
		if [ "$BS_TRIED" = 0 ]; then
			bootstate_write "$1" "$BS_ACTIVE" "$BS_TRIAL" 1 "$BS_FAILED"
			hu_log "slot $(slot_name "$BS_TRIAL"): trial boot"
			echo "$BS_TRIAL"
			return 0
		fi
		hu_error "slot $(slot_name "$BS_TRIAL"): the trial did not prove itself (crash, hang or power loss): back to slot $(slot_name "$BS_ACTIVE")"
		bootstate_write "$1" "$BS_ACTIVE" 0 0 "$BS_TRIAL"
	fi
	echo "$BS_ACTIVE"
}

# The partition number of the running root (from /proc/mounts), or nothing.
slot_running() {
	device=$(awk '$2 == "/" && $1 != "rootfs" { d = $1 } END { print d }' /proc/mounts)
	cat "/sys/class/block/${device##*/}/partition" 2>/dev/null
}

# The disk the slots are on: root= of the command line's disk.
slot_disk() {
	local root
	cmdline_set root root || return 1
	device=$(device_of "$root") || return 1
	disk_of "$device"
}

# Rollback protection: an image's version starts with its commit's UTC time,
# YYYY.MM.DD.HHMMSS (image/build), so versions order by that stamp. The
# stamp of VERSION as one number (20261127150912), or nothing.
version_stamp() {
	stamp=${1%%[!0-9.]*}
	case "$stamp" in
		[0-9][0-9][0-9][0-9].[0-9][0-9].[0-9][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]) echo "$stamp" | tr -d . ;;
	esac
}

# True when the bundle's version NEW is older than the running version
# RUNNING, or cannot be ordered against it (no stamp) while RUNNING has one.
# The same stamp (the same commit, rebuilt or renamed) is not older. A
# running version without a stamp (an image older than this rule) orders
# nothing: every signed bundle is accepted, as before.
version_older() {
	running_stamp=$(version_stamp "$2")
	[ -n "$running_stamp" ] || return 1
	new_stamp=$(version_stamp "$1")
	[ -n "$new_stamp" ] || return 0
	[ "$new_stamp" -lt "$running_stamp" ]
}

# The version line of a bundle's manifest, read before the signature is
# checked: only to refuse an older bundle before a byte is written. The
# version that arms the trial is the verified one `headunit install` prints.
bundle_version() {
	head -c 4112 "$1" 2>/dev/null | tr '\000' '\n' | sed -n 's/^version \([!-~]\{1,64\}\)$/\1/p' | head -n 1
}
