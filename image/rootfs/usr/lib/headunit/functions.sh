# Shell functions shared by the initramfs, the init scripts and the
# supervisor of the head unit image (busybox sh). Sourced, not run.

# Messages go to the kernel log: `dmesg` shows them all, and the serial
# console shows the errors (the kernel prints levels below 4 with `quiet`).
hu_log() { echo "<6>headunit-init: $*" >/dev/kmsg 2>/dev/null || echo "headunit-init: $*" >&2; }
hu_error() { echo "<3>headunit-init: $*" >/dev/kmsg 2>/dev/null || echo "headunit-init: $*" >&2; }

# cmdline_set VAR NAME: sets the shell variable VAR to the value of
# NAME=VALUE on the kernel command line, or returns 1 (VAR unchanged) when
# it is absent. Read by the shell itself: no process started, not even the
# subshell of a $(...) around it (under emulation a fork costs about 3 ms,
# a program's start about 9 ms; the scripts that start the head unit ask
# for a dozen values).
cmdline_set() {
	local line word
	read -r line </proc/cmdline
	for word in $line; do
		case "$word" in "$2"=*) eval "$1=\${word#*=}"; return 0 ;; esac
	done
	return 1
}

# Loads kernel modules, in the order given, with one modprobe: every
# process start costs (under emulation, a lot). When that reports a
# failure, the ones not loaded are tried again one by one, so that the log
# names each that did not load. A driver whose hardware the board lacks
# loads and binds nothing.
load_modules() {
	[ $# -gt 0 ] || return 0
	modprobe -a "$@" 2>/dev/null && return 0
	local module
	for module in "$@"; do
		module_loaded "$module" || modprobe "$module" || hu_error "module $module did not load"
	done
}

# True when the module is in the running kernel (/sys/module names it with
# _ where modprobe also takes -).
module_loaded() {
	local IFS=- name="" part
	for part in $1; do name=${name:+${name}_}$part; done
	[ -d "/sys/module/$name" ]
}

# Whole seconds since boot.
uptime_s() {
	read -r up _ </proc/uptime
	echo "${up%%.*}"
}

# The block device of an MBR partition UUID, SSSSSSSS-PP: the disk whose
# signature (4 bytes at offset 440) is SSSSSSSS, partition PP (hex).
# busybox has no blkid that knows PARTUUID, and there is no udev here.
partuuid_device() {
	signature=${1%-*}
	number=$((0x${1##*-}))
	for disk in /sys/block/*; do
		name=${disk##*/}
		[ -b "/dev/$name" ] || continue
		# One program, not three (dd | od | tr): od prints the word
		# with spaces before it, which the shell's splitting drops.
		found=$(od -An -tx4 -j440 -N4 "/dev/$name" 2>/dev/null)
		set -- $found
		[ "${1:-}" = "$signature" ] || continue
		disk_partition "/dev/$name" "$number" && return 0
	done
	return 1
}

# The partition device NUMBER of DISK: /dev/vda 4 -> /dev/vda4,
# /dev/mmcblk0 4 -> /dev/mmcblk0p4. Read by the shell (no cat per partition).
disk_partition() {
	local part number
	for part in "/sys/class/block/${1##*/}/${1##*/}"*; do
		[ -r "$part/partition" ] || continue
		read -r number <"$part/partition" || continue
		if [ "$number" = "$2" ]; then
			echo "/dev/${part##*/}"
			return 0
		fi
	done
	return 1
}

# The whole disk of a partition device: /dev/vda2 -> /dev/vda,
# /dev/mmcblk0p2 -> /dev/mmcblk0 (the disk whose sysfs folder holds the
# partition's; found by the shell, no readlink or basename started).
disk_of() {
	local name=${1##*/} disk
	for disk in /sys/block/*; do
		if [ -e "$disk/$name/partition" ]; then
			[ -b "/dev/${disk##*/}" ] && echo "/dev/${disk##*/}" && return 0
		fi
	done
	return 1
}

# The device the root filesystem is mounted from (/proc/mounts).
root_device() {
	local device mountpoint rest found=""
	while read -r device mountpoint rest; do
		case "$mountpoint:$device" in /:/dev/*) found=$device ;; esac
	done </proc/mounts
	[ -n "$found" ] && echo "$found"
}

# A device named like root= does: /dev/NAME or PARTUUID=SSSSSSSS-PP.
device_of() {
	case "$1" in
		PARTUUID=*) partuuid_device "${1#PARTUUID=}" ;;
		/dev/*) [ -b "$1" ] && echo "$1" ;;
		*) return 1 ;;
	esac
}

# Waits up to $2 seconds (default 10) for device_of $1.
wait_for_device() {
	tries=$(( ${2:-10} * 10 ))
	while [ "$tries" -gt 0 ]; do
		device_of "$1" && return 0
		usleep 100000
		tries=$((tries - 1))
	done
	return 1
}

# Waits up to $2 seconds for a path to exist.
wait_for_path() {
	tries=$(( $2 * 10 ))
	while [ ! -e "$1" ] && [ "$tries" -gt 0 ]; do
		usleep 100000
		tries=$((tries - 1))
	done
	[ -e "$1" ]
}

# Selects the board: headunit.board= on the command line, else the first
# board whose BOARD_COMPATIBLE lists a string of the device tree's root
# "compatible". Sources its configuration (BOARD_NAME, MODULES, HEADUNIT_*).
board_load() {
	dir=/etc/headunit/boards
	name=""
	cmdline_set name headunit.board
	if [ -z "$name" ] && [ -r /proc/device-tree/compatible ]; then
		for compatible in $(tr '\0' ' ' </proc/device-tree/compatible); do
			for conf in "$dir"/*.conf; do
				if (. "$conf"; for c in $BOARD_COMPATIBLE; do [ "$c" = "$compatible" ] && exit 0; done; exit 1); then
					name=$(basename "$conf" .conf)
					break 2
				fi
			done
		done
	fi
	if [ -z "$name" ] || [ ! -r "$dir/$name.conf" ]; then
		hu_error "unknown board '${name:-?}' (set headunit.board= on the kernel command line)"
		return 1
	fi
	. "$dir/$name.conf"
}

# True when the configuration file $1 sets key $3 in section [$2] (section
# and key names ignore case and take _ for -, as the firmware reads them;
# CR line ends are fine). A line the firmware would reject still counts:
# it reports that line itself.
conf_sets() {
	[ -r "$1" ] || return 1
	tr '\r' '\n' <"$1" | awk -v want_section="$2" -v want_key="$3" '
		function norm(s) { s = tolower(s); gsub(/_/, "-", s); gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
		/^[ \t]*#/ { next }
		/^[ \t]*\[/ { s = $0; sub(/^[ \t]*\[/, "", s); sub(/\].*/, "", s); section = norm(s); next }
		section == norm(want_section) && index($0, "=") > 0 {
			if (norm(substr($0, 1, index($0, "=") - 1)) == norm(want_key)) found = 1
		}
		END { exit !found }'
}
