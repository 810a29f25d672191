// ab.mjs: two or more versions of the live page side by side, in one
// invocation (bench/page_ab.sh runs it; see docs/benchmarks.md).
//
//   node ab.mjs --base URL --runs N --arms DIR,DIR[,...]
//
// Each DIR holds a version of the page's four files (index.html, app.js,
// flame.js, app.css, as in src/live/page/).  Every run opens a fresh tab
// on URL/ once per arm, in alternating order (arm order reversed every
// other run), and a Playwright route answers GET / and /ui/* from that
// arm's files: GET / with the agent's own answer's headers (the CSP and
// the Link preload) and the arm's index.html.  Every arm goes through the
// same routes, so they cost each arm the same; the data requests go to
// the agent.  A run ends at the page's first request after its
// "ying-usable" mark (GET /debug/heap/snapshot), as in bench.mjs.  Prints
// each arm's median usable time, in how many runs it was the fastest, and
// its runs, ms since navigation start.
import fs from 'fs';
import { launch } from './page.mjs';

const a = process.argv.slice(2), o = { runs: 9, gap: 1000 };
for (let i = 0; i < a.length; i += 2) o[a[i].replace(/^--/, '')] = a[i + 1];
const arms = String(o.arms || '').split(',').filter(Boolean);
if (!o.base || arms.length < 1) {
	console.error('usage: node ab.mjs --base URL --runs N --arms DIR,DIR');
	process.exit(2);
}
const type = { 'app.js': 'text/javascript; charset=utf-8', 'flame.js': 'text/javascript; charset=utf-8',
	'app.css': 'text/css; charset=utf-8' };
const median = (xs) => { const s = xs.slice().sort((x, y) => x - y), n = s.length;
	return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };

const browser = await launch();
const times = arms.map(() => []);
for (let r = 0; r < +o.runs; r++) {
	const order = arms.map((_, k) => k);
	if (r % 2) order.reverse();
	for (const k of order) {
		const dir = arms[k];
		const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
		const page = await ctx.newPage();
		await page.route(o.base + '/', async (route) => {
			const resp = await route.fetch();
			await route.fulfill({ response: resp, headers: resp.headers(),
				body: fs.readFileSync(dir + '/index.html') });
		});
		await page.route(o.base + '/ui/*', async (route) => {
			const f = new URL(route.request().url()).pathname.slice(4);
			if (!type[f]) return route.fulfill({ status: 404, body: '' });
			await route.fulfill({ status: 200, contentType: type[f], body: fs.readFileSync(dir + '/' + f) });
		});
		const after = page.waitForRequest((q) => q.url().endsWith('/debug/heap/snapshot'), { timeout: 120000 });
		await page.goto(o.base + '/', { waitUntil: 'commit' });
		await after;
		times[k].push(await page.evaluate(() => performance.getEntriesByName('ying-usable')[0].startTime));
		await ctx.close();
		await new Promise((res) => setTimeout(res, +o.gap));   /* past the endpoint's dump pacing */
	}
}
await browser.close();
/* fastest: the runs in which the arm was the fastest of all (a paired
 * count: each run's arms ran back to back, on the same machine's minute) */
const fastest = arms.map((_, k) => times[k].filter((t, r) => times.every((x) => x[r] >= t)).length);
arms.forEach((dir, k) => console.log(JSON.stringify({ arm: dir, runs: times[k].length,
	usable: Math.round(median(times[k])), fastest: fastest[k], each: times[k].map(Math.round) })));
