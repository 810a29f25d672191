// bench.mjs: the live page's speed in Debian's chromium, by the browser's
// own clocks (bench/page.sh runs it; see docs/benchmarks.md).
//
//   node bench.mjs --base URL --runs N [--label TEXT] [--gap MS] [--ab 1|--floor 1|--svg 1|--warm 1]
//
// Each run opens a fresh tab on URL/ and reads, from the page:
//   usable   performance mark "ying-usable" (chart, top table and flame
//            graph drawn, and the frame that shows them made), ms since
//            the navigation started;
//   fetch    GET /debug/heap?format=tree, request to parsed JSON (ms);
//   parse    the tree into typed arrays; layout: selection and offsets;
//   draw     one flame graph draw (the first); redraw: the median of 5
//            redraws after zooming out (F.zoomTo(0));
//   longest  the longest long task (PerformanceObserver "longtask"), ms;
//   nodes    the tree's nodes, drawn: frames drawn (wider than a pixel);
//   trees    the tree requests the browser made (1: the preload served it).
// With --svg 1, the side-by-side comparison instead: the same heap's SVG
// flame graph (GET /debug/heap/flamegraph, ying's static SVG with its own
// script) opened in the tab: load (the navigation's loadEventEnd), fetch
// (its responseEnd), bytes, longest long task.
// With --ab 1, side by side in one invocation: runs alternate between the
// page as served and the same page without GET /'s Link preload header
// (stripped by a route; both arms go through the route), one median line
// each ("preload" and "no preload").
// With --floor 1, side by side the other way: runs alternate between the
// page and a trivial one (a heading, a canvas, a deferred script that
// fills a rectangle and marks "ying-usable" two animation frames later)
// served by a Node HTTP server on 127.0.0.1: the machine's floor, what any
// page costs this browser here ("floor" line; its other fields are null).
// With --warm 1, every run in one tab (about:blank between runs, the first
// run not counted): the renderer process, its fonts, the compiled scripts
// and the HTTP cache (a 304 for the page's files) are warm, as when the
// page is opened again or reloaded.
// A run waits for the page's first request after the mark (GET
// /debug/heap/snapshot; the trivial page makes one to its server) rather
// than polling the page: Playwright's polling would compile its injected
// script into the tab while the page loads, and that CPU is not the page's.
// Runs are GAP ms apart (default 1000: the endpoint paces back-to-back
// dumps, 3x the last one's cost).  Prints one JSON line per run, then one
// with the medians.
import http from 'http';
import { launch } from './page.mjs';

const a = process.argv.slice(2), o = { runs: 5, label: '', gap: 1000 };
for (let i = 0; i < a.length; i += 2) o[a[i].replace(/^--/, '')] = a[i + 1];
const median = (xs) => { const s = xs.slice().sort((x, y) => x - y), n = s.length;
	return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : null; };

let floor = null;
if (o.floor) {
	const html = '<!DOCTYPE html><html><head><meta charset="utf-8"><title>floor</title>' +
		'<script src="/a.js" defer></script></head><body><h1>floor</h1>' +
		'<canvas id="c" width="800" height="300"></canvas></body></html>';
	const js = "const c = document.getElementById('c').getContext('2d');" +
		"c.fillStyle = '#c00'; c.fillRect(10, 10, 100, 100); c.fillText('floor', 200, 50);" +
		"requestAnimationFrame(() => requestAnimationFrame(() => { performance.mark('ying-usable');" +
		"fetch('/debug/heap/snapshot'); }));";
	floor = http.createServer((q, r) => {
		const isJs = q.url === '/a.js';
		r.writeHead(isJs || q.url === '/' ? 200 : 404,
			{ 'content-type': isJs ? 'text/javascript' : 'text/html' });
		r.end(isJs ? js : q.url === '/' ? html : '');
	});
	await new Promise((res) => floor.listen(0, '127.0.0.1', res));
}
const browser = await launch();
const runs = [], arms = [];
let warm = null;
if (o.warm && (o.ab || o.floor || o.svg)) {
	console.error('bench.mjs: --warm goes alone (not with --ab, --floor or --svg)');
	process.exit(2);
}
if (o.warm) {
	const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
	warm = { ctx, page: await ctx.newPage() };
	o.runs = +o.runs + 1;
}
for (let r = 0; r < +o.runs; r++) {
	const ctx = warm ? warm.ctx : await browser.newContext({ viewport: { width: 1280, height: 900 } });
	const page = warm ? warm.page : await ctx.newPage();
	const strip = o.ab && r % 2 === 1, trivial = o.floor && r % 2 === 1;
	if (o.ab) {
		await page.route(o.base + '/', async (route) => {
			const resp = await route.fetch(), h = resp.headers();
			if (strip) delete h.link;
			await route.fulfill({ response: resp, headers: h });
		});
	}
	arms.push(o.floor ? (trivial ? 'floor' : 'page') : strip ? 'no preload' : 'preload');
	if (o.svg) {
		await page.addInitScript(() => {
			window.__lt = [];
			new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__lt.push(e.duration); })
				.observe({ type: 'longtask', buffered: true });
		});
		await page.goto(o.base + '/debug/heap/flamegraph', { waitUntil: 'load', timeout: 120000 });
		await new Promise((res) => setTimeout(res, 300));
		const m = await page.evaluate(() => {
			const n = performance.getEntriesByType('navigation')[0];
			return { load: n.loadEventEnd, fetch: n.responseEnd, bytes: n.transferSize,
				longest: window.__lt.length ? Math.max(...window.__lt) : 0 };
		});
		runs.push(m);
		console.log(JSON.stringify(Object.assign({ run: r }, m)));
		await ctx.close();
		await new Promise((res) => setTimeout(res, +o.gap));
		continue;
	}
	const after = page.waitForRequest((q) => q.url().endsWith('/debug/heap/snapshot'), { timeout: 120000 });
	await page.goto(trivial ? 'http://127.0.0.1:' + floor.address().port + '/' : o.base + '/',
		{ waitUntil: 'commit' });
	await after;
	const m = trivial ? await page.evaluate(() => ({
		usable: performance.getEntriesByName('ying-usable')[0].startTime, fetch: null, parse: null,
		layout: null, draw: null, redraw: null, longest: null, nodes: null, drawn: null, trees: null })) :
		await page.evaluate(async () => {
			const P = window.yingPage, F = P.flame;
			const draws = [];
			for (let k = 0; k < 5; k++) {
				F.zoomTo(0);
				await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
				draws.push(P.timings.flameDraw);
			}
			await new Promise((res) => setTimeout(res, 200));
			draws.sort((x, y) => x - y);
			return { usable: performance.getEntriesByName('ying-usable')[0].startTime,
				fetch: P.timings.treeFetch, parse: P.timings.treeParse, layout: P.timings.layout,
				draw: P.timings.firstFlameDraw, redraw: draws[2],
				longest: P.longTasks.length ? Math.max(...P.longTasks) : 0,
				nodes: F.tree ? F.tree.n : 0, drawn: F.drawn,
				trees: performance.getEntriesByType('resource')
					.filter((e) => e.name.includes('format=tree')).length };
		});
	if (!warm || r > 0) runs.push(m);
	await new Promise((res) => setTimeout(res, trivial ? 200 : +o.gap));   /* past the endpoint's dump pacing */
	console.log(JSON.stringify(Object.assign({ run: r }, m)));
	if (warm) await page.goto('about:blank');
	else await ctx.close();
}
await browser.close();
if (floor) floor.close();
const medians = (rs) => {
	const med = {};
	for (const k of Object.keys(rs[0])) med[k] = rs[0][k] === null ? null : median(rs.map((x) => x[k]));
	return med;
};
if (o.ab || o.floor) {
	for (const arm of o.floor ? ['page', 'floor'] : ['preload', 'no preload']) {
		const rs = runs.filter((_, i) => arms[i] === arm);
		console.log(JSON.stringify({ label: o.label + ', ' + arm, runs: rs.length, median: medians(rs) }));
	}
} else {
	console.log(JSON.stringify({ label: o.label, runs: runs.length, median: medians(runs) }));
}
