# Sourced by the integration scripts that hold vkernel against native
# runs.  same CMD [ARG...] runs the command natively and as
# "$vk run -- CMD [ARG...]", and passes only if stdout and the exit status
# agree and there was some output to compare.  Expects $vk and $case_.
same() {
	local want got ws gs
	want=$("$@" 2>/dev/null); ws=$?
	got=$("$vk" run -- "$@" 2>/dev/null); gs=$?
	if [ "$want" != "$got" ] || [ "$ws" != "$gs" ]; then
		echo "FAIL: $case_: status native $ws, vkernel $gs" >&2
		diff <(echo "$want") <(echo "$got") | head -20 >&2
		exit 1
	fi
	if [ -z "$want" ]; then
		echo "FAIL: $case_: no output to compare" >&2
		exit 1
	fi
	echo "ok: $case_"
}
