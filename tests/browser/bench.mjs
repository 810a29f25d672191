// bench.mjs: the live page's speed in Debian's chromium, by the browser's
// own clocks (bench/page.sh runs it; see docs/benchmarks.md).
//
//   node bench.mjs --base URL --runs N [--label TEXT] [--gap MS]
//
// Each run opens a fresh tab on URL/ and reads, from the page:
//   usable   performance mark "ying-usable" (chart, top table and flame
//            graph drawn), ms since the navigation started;
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
// Runs are GAP ms apart (default 1000: the endpoint paces back-to-back
// dumps, 3x the last one's cost).  Prints one JSON line per run, then one
// with the medians.
import { launch } from './page.mjs';

const a = process.argv.slice(2), o = { runs: 5, label: '', gap: 1000 };
for (let i = 0; i < a.length; i += 2) o[a[i].replace(/^--/, '')] = a[i + 1];
const median = (xs) => { const s = xs.slice().sort((x, y) => x - y), n = s.length;
	return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : null; };

const browser = await launch();
const runs = [], arms = [];
for (let r = 0; r < +o.runs; r++) {
	const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
	const page = await ctx.newPage();
	const strip = o.ab && r % 2 === 1;
	if (o.ab) {
		await page.route(o.base + '/', async (route) => {
			const resp = await route.fetch(), h = resp.headers();
			if (strip) delete h.link;
			await route.fulfill({ response: resp, headers: h });
		});
	}
	arms.push(strip ? 'no preload' : 'preload');
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
	await page.goto(o.base + '/');
	await page.waitForFunction(() => window.yingPage && window.yingPage.usable, null, { timeout: 120000 });
	const m = await page.evaluate(async () => {
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
	runs.push(m);
	await new Promise((res) => setTimeout(res, +o.gap));   /* past the endpoint's dump pacing */
	console.log(JSON.stringify(Object.assign({ run: r }, m)));
	await ctx.close();
}
await browser.close();
const medians = (rs) => {
	const med = {};
	for (const k of Object.keys(rs[0])) med[k] = median(rs.map((x) => x[k]));
	return med;
};
if (o.ab) {
	for (const arm of ['preload', 'no preload']) {
		const rs = runs.filter((_, i) => arms[i] === arm);
		console.log(JSON.stringify({ label: o.label + ', ' + arm, runs: rs.length, median: medians(rs) }));
	}
} else {
	console.log(JSON.stringify({ label: o.label, runs: runs.length, median: medians(runs) }));
}
