// page.mjs: the live page (GET / of ying's endpoint) in Debian's chromium,
// driven by Playwright (playwright-core, pinned in package-lock.json; no
// bundled browser).  Used by tests/integration/page_browser.sh, which reads
// the "PASS text" / "FAIL text" lines this prints as TAP results.
//
//   node page.mjs --base URL --shots DIR [--leak FN] [--token T] [--serve]
//
// checkPage(browser, base, opts) is the reusable part: every check of one
// endpoint's page (a live agent, or `ying serve` with opts.serve: no
// snapshot taking, no sampling control); checkToken(browser, base, token)
// the token form.  Exit status 0 even when a check fails (the FAIL lines
// say it); 2 when the browser cannot be driven at all.
import { chromium } from 'playwright-core';

const results = [];
export function pass(ok, text, detail) {
	results.push(ok);
	console.log((ok ? 'PASS ' : 'FAIL ') + text + (ok || !detail ? '' : ' -- ' + detail));
	return ok;
}

export async function launch() {
	return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

// A page that records console errors, page errors and CSP violations.
// Resource loads the page expects to fail (a 404 it shows as "not
// available", the 401 that opens the token form) are not errors of the page.
export async function openPage(browser, base, allow) {
	const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
	const page = await ctx.newPage();
	const errors = [];
	const expected = allow || /Failed to load resource: the server responded with a status of (404|401)/;
	page.on('console', (m) => {
		if (m.type() === 'error' && !expected.test(m.text())) errors.push(m.text());
		if (/Content Security Policy/i.test(m.text())) errors.push('CSP: ' + m.text());
	});
	page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
	const requests = [];
	page.on('request', (r) => requests.push(r.url()));
	return { ctx, page, errors, requests };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function canvasPixel(page, id, x, y) {
	return page.evaluate(([id, x, y]) => {
		const c = document.getElementById(id), d = window.devicePixelRatio || 1;
		const p = c.getContext('2d').getImageData(Math.round(x * d), Math.round(y * d), 1, 1).data;
		return [p[0], p[1], p[2]];
	}, [id, x, y]);
}

// Click the widest frame named `name` of canvas `id`; the zoomed root after.
async function clickFrame(page, id, name) {
	const r = await page.evaluate(([id, name]) => window.yingPage[id === 'flame' ? 'flame' : 'dflame']
		.frameRect(name), [id, name]);
	if (!r) return { r: null };
	const box = await page.locator('#' + id).boundingBox();
	await page.mouse.move(box.x + r.x + Math.min(r.w / 2, 40), box.y + r.y + r.h / 2);
	await sleep(100);
	const tip = await page.locator('#tip').textContent();
	await page.mouse.click(box.x + r.x + Math.min(r.w / 2, 40), box.y + r.y + r.h / 2);
	await page.waitForFunction((id) => document.getElementById(id).dataset.root !== 'all', id,
		{ timeout: 5000 }).catch(() => {});
	return { r, tip, root: await page.locator('#' + id).getAttribute('data-root') };
}

export async function checkPage(browser, base, opts) {
	const o = { leak: 'leak_alloc', shots: '.', serve: false, wait: 8 };
	for (const k in opts || {}) if (opts[k] !== undefined) o[k] = opts[k];
	const { ctx, page, errors, requests } = await openPage(browser, base);
	await page.goto(base + '/');
	const usable = await page.waitForFunction(() => window.yingPage && window.yingPage.usable,
		null, { timeout: 15000 }).then(() => true, () => false);
	pass(usable, 'the page becomes usable (chart, table and flame graph drawn)');
	await page.waitForFunction(() => window.yingPage.ready, null, { timeout: 15000 }).catch(() => {});
	const P0 = await page.evaluate(() => ({ csp: window.yingPage.csp, errors: window.yingPage.errors,
		usableAt: performance.getEntriesByName('ying-usable')[0]?.startTime }));
	pass(errors.length === 0 && P0.errors.length === 0, 'no console error, no page error',
		JSON.stringify(errors.concat(P0.errors)));
	pass(P0.csp.length === 0 && !errors.some((e) => e.startsWith('CSP')), 'no CSP violation',
		JSON.stringify(P0.csp));
	// GET / preloads the first tree (no token here): one tree request, made
	// before app.js (which asks for it) was even requested
	const isTree = (u) => u.includes('/debug/heap?format=tree');
	const trees = requests.filter(isTree).length, at = requests.findIndex(isTree);
	const js = requests.findIndex((u) => u.endsWith('/ui/app.js'));
	pass(trees === 1 && at >= 0 && js >= 0 && at < js,
		"the page's first tree is GET /'s preload (one tree request, before app.js)",
		trees + ' tree requests, at ' + at + ', app.js at ' + js);
	const foreign = requests.filter((u) => !u.startsWith(base + '/'));
	pass(foreign.length === 0, 'every request goes to the endpoint itself', foreign.join(' '));
	await page.screenshot({ path: o.shots + '/page.png', fullPage: true });

	// memory over time: the chart's own data grows while the program leaks
	const s0 = await page.evaluate(() => window.yingPage.series);
	await sleep(o.wait * 1000);
	const s1 = await page.evaluate(() => window.yingPage.series);
	const ok0 = s0 && s1 && s0.t.length >= 2 && s1.t.length > s0.t.length;
	// offline (ying serve) a dump gives its heap's total, not jemalloc's counters
	const a = s1 ? (o.serve ? Object.values(s1.heaps)[0] || [] : s1.allocated)
		.filter((v) => v != null) : [];
	pass(ok0 && a.length >= 3 && a[a.length - 1] > a[0] * 1.2,
		'the chart shows the growth (polled with since=: more points, live heap up)',
		s1 ? 'points ' + (s0 && s0.t.length) + ' -> ' + s1.t.length + ', allocated ' + a[0] + ' -> ' +
			a[a.length - 1] : 'no series');
	const rssOk = s1 && s1.rss.some((v) => v > 0);
	if (!o.serve) pass(rssOk, 'the chart has the process RSS');

	// the top table and the flame graph on one selection (of the heap now)
	const sel = () => page.evaluate(() => window.yingPage.selections);
	const waitSel = (n) => page.waitForFunction((n) => window.yingPage.selections > n, n,
		{ timeout: 15000 }).catch(() => {});
	let n0 = await sel();
	await page.click('#refresh');
	await waitSel(n0);
	const top = await page.locator('#top tbody tr').first().getAttribute('data-fn');
	pass(top === o.leak, 'the top table ranks ' + o.leak + ' first', 'first: ' + top);
	const z = await clickFrame(page, 'flame', o.leak);
	pass(z.r && z.root === o.leak, 'clicking the ' + o.leak + ' frame zooms to it', JSON.stringify(z));
	pass(!!z.tip && z.tip.includes(o.leak) && /\.c:\d+/.test(z.tip),
		'hovering a frame shows its name and file:line', z.tip);
	await page.screenshot({ path: o.shots + '/flame-zoom.png', fullPage: true });
	await page.click('#reset-zoom');
	await page.waitForFunction(() => document.getElementById('flame').dataset.root === 'all');
	await page.fill('#search', '^' + o.leak + '$');
	await page.waitForFunction(() => window.yingPage.flame.matches > 0, null, { timeout: 5000 })
		.catch(() => {});
	await sleep(300);
	const r = await page.evaluate((n) => window.yingPage.flame.frameRect(n), o.leak);
	const px = r ? await canvasPixel(page, 'flame', r.x + 2, r.y + 2) : null;
	const m = await page.evaluate(() => window.yingPage.flame.matches);
	pass(m > 0 && px && px[0] === 0xd6 && px[1] === 0x3a && px[2] === 0xf9,
		'a search highlights the matching frames (in magenta)', 'matches ' + m + ' pixel ' + px);
	const msg = await page.locator('#search-msg').textContent();
	pass(/frames match/.test(msg), 'the search says how much matches', msg);
	await page.fill('#search', '');
	n0 = await sel();
	await page.fill('#focus', 'churn');
	await waitSel(n0);
	await sleep(100);
	const f1 = await page.locator('#top tbody tr').first().getAttribute('data-fn');
	const fr = await page.evaluate((n) => window.yingPage.flame.frameRect(n), o.leak);
	pass(f1 !== o.leak && fr === null, 'focus applies to the table and the flame graph alike',
		'first ' + f1 + ', ' + o.leak + ' frame ' + JSON.stringify(fr));
	n0 = await sel();
	await page.fill('#focus', '');
	await waitSel(n0);
	await sleep(300);

	// rows per source line and per whole stack (the server's top table, ?by=)
	for (const by of ['line', 'stack']) {
		n0 = await sel();
		await page.selectOption('#rows-by', by);
		await waitSel(n0);
		await sleep(100);
		const first = await page.locator('#top tbody tr').first().getAttribute('data-fn');
		const cells = await page.locator('#top tbody tr').first().locator('td').allTextContents();
		const msg = await page.locator('#table-msg').textContent();
		const want = first === o.leak && (by === 'line' ? /\.c:\d+/.test(cells[5] || '') :
			new RegExp(o.leak + ' .*main').test(cells[4] || ''));
		pass(want && msg.includes(by === 'line' ? ' lines' : ' stacks'),
			'rows by ' + by + ': ' + o.leak + ' first, as the server ranks it', first + ' | ' +
			cells.join(' ') + ' | ' + msg);
	}
	n0 = await sel();
	await page.selectOption('#rows-by', 'function');
	await waitSel(n0);
	await sleep(100);

	// snapshot, wait, diff: the leaking function in red with its verdict
	if (!o.serve) {
		await page.fill('#snap-name', 'before');
		await page.click('#snap-take');
		await page.waitForFunction(() => /taken/.test(document.getElementById('diff-msg').textContent),
			null, { timeout: 10000 }).catch(() => {});
		await sleep(o.wait * 1000);
	} else if (o.base) {
		await page.selectOption('#diff-base', o.base);
	}
	await page.click('#diff-go');
	await page.waitForFunction(() => window.yingPage.diffDone > 0, null, { timeout: 20000 }).catch(() => {});
	const rows = await page.evaluate(() => window.yingPage.diffRows);
	const lr = rows.find((x) => x.function === o.leak);
	const colour = lr ? await page.locator('#growth tr[data-fn="' + o.leak + '"] td').first()
		.evaluate((e) => getComputedStyle(e).color) : null;
	pass(!!lr && lr.delta > 0 && lr.significant, 'the diff: ' + o.leak + ' grew, significantly',
		JSON.stringify(lr));
	pass(!!lr && lr.verdict === 'leak' && lr.red && colour === 'rgb(192, 0, 0)',
		'the diff shows ' + o.leak + ' in red with its verdict "leak"', JSON.stringify(lr) + ' ' + colour);
	const dz = await page.evaluate((n) => window.yingPage.dflame.frameRect(n), o.leak);
	const dpx = dz ? await canvasPixel(page, 'dflame', dz.x + 2, dz.y + 2) : null;
	pass(!!dpx && dpx[0] > 150 && dpx[1] < 150 && dpx[2] < 150,
		'the differential flame graph draws the growth in red', String(dpx));
	await page.locator('#p-diff').screenshot({ path: o.shots + '/diff.png' });
	await page.screenshot({ path: o.shots + '/page-diff.png', fullPage: true });

	// live: a growth report's dump as the diff's base (report:NAME), the
	// oldest the history names
	if (!o.serve) {
		const rep = await page.evaluate(() => [...document.getElementById('diff-base').options]
			.map((x) => x.value).find((v) => v.startsWith('report:')));
		pass(!!rep, 'the diff offers the growth reports as points', 'no report: option');
		if (rep) {
			const d0 = await page.evaluate(() => window.yingPage.diffDone);
			await page.selectOption('#diff-base', rep);
			await page.selectOption('#diff-now', '');
			await page.click('#diff-go');
			await page.waitForFunction((d0) => window.yingPage.diffDone > d0, d0, { timeout: 20000 })
				.catch(() => {});
			const rr = (await page.evaluate(() => window.yingPage.diffRows)).find((x) => x.function === o.leak);
			const summary = await page.locator('#diff-summary').textContent();
			pass(!!rr && rr.delta > 0 && rr.significant && rr.verdict === 'leak' &&
				summary.startsWith(rep.slice(7)),
				'a diff from a report to now shows ' + o.leak + ' grown, with its verdict',
				JSON.stringify(rr) + ' ' + summary);
		}
	}

	await page.evaluate(() => window.scrollTo(0, 0));
	await page.screenshot({ path: o.shots + '/page-top.png' });

	// the sampling rate: POST /debug/prof/sample?lg=N from the page, shown back
	if (!o.serve) {
		await page.fill('#lg', '15');
		await page.click('#lg-go');
		const set = await page.waitForFunction(() => /lg_prof_sample 15\)/.test(
			document.getElementById('prof').textContent), null, { timeout: 10000 })
			.then(() => true, () => false);
		pass(set && (await page.locator('#lg-msg').textContent()) === 'set',
			'the sampling control sets lg_prof_sample 15 and shows it',
			await page.locator('#prof').textContent());
	}
	pass(errors.length === 0, 'still no console error after using it', JSON.stringify(errors));
	await ctx.close();
}

// The token form: asked for on the first 401, a wrong token refused, the
// right one opens the page; kept in sessionStorage, never in a URL.
export async function checkToken(browser, base, token, shots) {
	const { ctx, page, errors, requests } = await openPage(browser, base);
	await page.goto(base + '/');
	const asked = await page.waitForSelector('#login:not(.hidden)', { timeout: 10000 })
		.then(() => true, () => false);
	pass(asked, 'with a token: the page asks for it (a form in the page)');
	await page.fill('#token', 'wrong-' + token);
	await page.click('#login-go');
	const refused = await page.waitForFunction(() => /refused/.test(document.getElementById('login-msg')
		.textContent), null, { timeout: 10000 }).then(() => true, () => false);
	pass(refused && await page.locator('#main').isHidden(), 'a wrong token is refused, visibly');
	await page.screenshot({ path: shots + '/token-refused.png' });
	await page.fill('#token', token);
	await page.click('#login-go');
	const ok = await page.waitForFunction(() => window.yingPage.usable, null, { timeout: 15000 })
		.then(() => true, () => false);
	pass(ok && await page.locator('#login').isHidden(), 'the right token opens the page');
	const stored = await page.evaluate(() => sessionStorage.getItem('ying-token'));
	pass(stored === token, 'the token is kept in sessionStorage');
	pass(!requests.some((u) => u.includes(token)) && !page.url().includes(token),
		'the token is never in a URL');
	const bad = errors.filter((e) => !/status of 401/.test(e));
	pass(bad.length === 0, 'no console error with the token', JSON.stringify(bad));
	await ctx.close();
}

async function main() {
	const a = process.argv.slice(2), opt = {};
	for (let i = 0; i < a.length; i++) {
		if (a[i] === '--serve') opt.serve = true;
		else opt[a[i].replace(/^--/, '')] = a[++i];
	}
	let browser;
	try {
		browser = await launch();
	} catch (e) {
		console.error('page.mjs: cannot start chromium: ' + e.message);
		process.exit(2);
	}
	try {
		if (opt.token) await checkToken(browser, opt.base, opt.token, opt.shots || '.');
		else await checkPage(browser, opt.base, { leak: opt.leak, shots: opt.shots || '.',
			serve: !!opt.serve, base: opt.basesnap, wait: +(opt.wait || 8) });
	} catch (e) {
		pass(false, 'the driver ran to the end', e.stack);
	}
	await browser.close();
}

if (import.meta.url === 'file://' + process.argv[1]) main();
