# Sourced by the busybox-driven tests (busybox.sh, fs.sh) with their
# arguments, after they set prog, busybox (the default) and all_cases:
# handles "-l" (list the cases) and "-b BUSYBOX", takes VKERNEL (or
# $VKERNEL) off the arguments and checks it, exits 77 unless busybox is a
# static executable, and makes the scratch directory $tmp, removed at exit.
# What stays in "$@" are the cases asked for.
if [ "${1:-}" = -l ]; then
	echo $all_cases
	exit 0
fi
if [ "${1:-}" = -b ]; then
	[ $# -ge 2 ] || { echo "$prog: -b needs a path" >&2; exit 2; }
	busybox=$2
	shift 2
fi
vkernel=${1:-${VKERNEL:-}}
[ $# -gt 0 ] && shift
if [ -z "$vkernel" ]; then
	echo "$prog: no vkernel given (argument or \$VKERNEL)" >&2
	exit 2
fi
if [ ! -x "$vkernel" ]; then
	echo "$prog: vkernel '$vkernel' is not an executable file" >&2
	exit 2
fi
if [ ! -x "$busybox" ]; then
	echo "$prog: no busybox at $busybox; skipped (install busybox-static)"
	exit 77
fi
# A dynamic busybox names its loader near the start of the file.
if head -c 4096 "$busybox" | tr -d '\000' | grep -q 'ld-linux'; then
	echo "$prog: $busybox is dynamically linked; skipped" \
	    "(need busybox-static)"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vk-${prog%.sh}.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
