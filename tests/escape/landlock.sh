#!/bin/sh
# With Landlock, a vkernel that escaped hostfs's RESOLVE_BENEATH still
# reaches host files only beneath its root layer and binds, and writes
# only beneath rw binds: the test hook makes the locked-down vkernel
# openat2 host paths as a taken-over one could, with ".." out of the
# root layer's descriptor, and each outcome is checked, while the guest
# runs as usual.  (Its empty root, stacked over the host's /, leaves
# absolute paths, and ".." up through /, nothing to find: with
# --userns=off they meet Landlock too.)  As root and as user 65534.
# Skips (77) on a host without Landlock.
# Usage: landlock.sh VKERNEL GUEST
vk=$1
# The unprivileged host user, as the other tests run it.
asuser=$(cd "$(dirname "$0")/../integration" && pwd)/asuser.sh
guest=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/root" "$tmp/ro" "$tmp/rw"
cp "$guest" "$tmp/root/hello"
for f in ro/f rw/f outside; do
	echo x >"$tmp/$f"
done
chmod -R a+rwX "$tmp"
chmod 755 "$tmp"

if "$vk" run --landlock=required --root "$tmp/root" -- /hello 2>&1 |
    grep -q 'host has no Landlock'; then
	echo "skip: no Landlock on this host"
	exit 77
fi

# expect AS WANT OPEN [OPTIONS]: the hook's open OPEN gives WANT.
expect() {
	as=$1 want=$2 open=$3
	shift 3
	out=$(VKERNEL_TEST_OPEN=$open $as "$vk" run "$@" --root "$tmp/root" \
	    --bind "$tmp/ro:/ro" --bind "$tmp/rw:/rw:rw" -- /hello 2>&1)
	case $out in
	*"vkernel-test: open $open: $want"*"hello from guest"*) ;;
	*)
		echo "FAIL: ${as:-root} $* $open: want '$want', got: $out" >&2
		fail=1
		;;
	esac
}

for as in "" "$asuser"; do
	[ -z "$as" ] || [ "$(id -u)" = 0 ] || continue
	denied="Permission denied"
	up=../../../../../../../../../..
	expect "$as" "No such file" "r:$up/etc/passwd"
	expect "$as" "No such file" "r:$up/etc/passwd" --landlock=off
	expect "$as" "$denied" "r:$up/etc/passwd" --userns=off
	expect "$as" "$denied" "r:../outside"
	expect "$as" "$denied" "w:../outside"
	expect "$as" "$denied" "w:../ro/f"
	expect "$as" "$denied" "w:hello"
	expect "$as" opened "r:../ro/f"
	expect "$as" opened "w:../rw/f"
	expect "$as" opened "r:hello"
	expect "$as" "$denied" "r:/etc/passwd" --userns=off
	expect "$as" "$denied" "w:$tmp/rw/../outside" --userns=off
	expect "$as" opened "w:$tmp/rw/f" --userns=off
	# The same opens succeed without Landlock: the hook is not at fault.
	expect "$as" opened "r:$up/etc/passwd" --landlock=off --userns=off
	expect "$as" opened "w:../outside" --landlock=off
	expect "$as" opened "r:/etc/passwd" --landlock=off --userns=off
	stats=$($as "$vk" run --stats --root "$tmp/root" -- /hello 2>&1)
	if ! echo "$stats" | grep -q '^landlock: ABI [1-9]'; then
		echo "FAIL: ${as:-root}: --stats does not name the ABI" >&2
		fail=1
	fi
	stats=$($as "$vk" run --stats --landlock=off --root "$tmp/root" \
	    -- /hello 2>&1)
	if ! echo "$stats" | grep -q '^landlock: not applied'; then
		echo "FAIL: ${as:-root}: --stats with --landlock=off" >&2
		fail=1
	fi
done
"$vk" run --landlock=bogus -- /bin/true 2>/dev/null
if [ $? -ne 2 ]; then
	echo "FAIL: --landlock=bogus is not a usage error" >&2
	fail=1
fi
[ $fail = 0 ] && echo "ok: Landlock holds a vkernel to its trees"
exit $fail
