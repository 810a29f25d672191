# browser_lib.sh: the Playwright setup shared by tests/integration/
# page_browser.sh and bench/page.sh.  Not a test itself.
#
# browser_setup: copies tests/browser/ (package.json, package-lock.json,
# the .mjs drivers) into $YING_BUILDDIR/tests/browser and, when its
# node_modules is missing or the lock changed, installs the pinned
# playwright-core there with `npm ci --no-audit --no-fund` (no browser is
# downloaded: Debian's /usr/bin/chromium is driven).  Sets BROWSER_DIR.
# Returns non-zero (the npm output in $T/npm.log) when the install fails.
browser_setup() {
	BROWSER_DIR="$YING_BUILDDIR/tests/browser"
	mkdir -p "$BROWSER_DIR" || return 1
	for _f in package.json package-lock.json page.mjs bench.mjs ab.mjs; do
		cp "$YING_SRCDIR/tests/browser/$_f" "$BROWSER_DIR/$_f.new" &&
		    mv "$BROWSER_DIR/$_f.new" "$BROWSER_DIR/$_f" || return 1
	done
	if [ -f "$BROWSER_DIR/node_modules/playwright-core/package.json" ] &&
	    cmp -s "$BROWSER_DIR/package-lock.json" "$BROWSER_DIR/node_modules/.ying-lock"; then
		return 0
	fi
	(cd "$BROWSER_DIR" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 timeout 300 \
	    npm ci --no-audit --no-fund) >"$T/npm.log" 2>&1 || return 1
	cp "$BROWSER_DIR/package-lock.json" "$BROWSER_DIR/node_modules/.ying-lock"
}

# browser_run DRIVER ARGS...: node DRIVER (from $BROWSER_DIR) ARGS; each
# "PASS text" / "FAIL text" line it prints becomes a TAP result; a driver
# that ends badly without a FAIL line is one failure.
browser_run() {
	_drv=$1
	shift
	(cd "$BROWSER_DIR" && CHROMIUM=$(command -v chromium) timeout 240 node "$_drv" "$@") \
	    >"$T/drv.out" 2>"$T/drv.err"
	_rc=$?
	while IFS= read -r _line; do
		case "$_line" in
		PASS\ *) ok 0 "${_line#PASS }" ;;
		FAIL\ *) ok 1 "${_line#FAIL }" ;;
		esac
	done <"$T/drv.out"
	if [ "$_rc" -ne 0 ] || ! grep -q '^\(PASS\|FAIL\) ' "$T/drv.out"; then
		ok 1 "the browser driver $_drv ran (status $_rc)"
		diag "$T/drv.err"
	fi
}
