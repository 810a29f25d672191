/* app.js: the live page of ying's HTTP endpoint (served as /ui/app.js).
 *
 * Plain JS, no framework, no request outside this origin.  It reads the
 * JSON endpoints of docs/ying-http.7 and draws: memory over time (a canvas
 * chart of GET /debug/history, polled every 2 s with ?since=), the top table
 * and the flame graph of GET /debug/heap?format=tree on one selection
 * (focus/ignore), snapshot and diff (the growth table of
 * /debug/heap/diff?format=json joined with /debug/heap/leaks' verdicts, and
 * the differential flame graph), the RSS breakdown, the processes, giant
 * allocations and the sampling rate.  A panel whose endpoint answers 404
 * says "not available" with the answer's reason.
 *
 * The token, when the endpoint has one: asked for by a form on the first
 * 401, kept in sessionStorage, sent as "Authorization: Bearer"; never in a URL.
 *
 * The trees, the selection and the flame graphs: flame.js (loaded first).
 * window.yingPage exposes what the browser test and bench read (series,
 * flame state, marks, long tasks, CSP violations); performance marks:
 * "ying-usable" (chart, table and flame graph drawn and the frame that
 * shows them made: two animation frames after the last draw), "flame-drawn".
 */
'use strict';
(function () {
const $ = (id) => document.getElementById(id);
const P = window.yingPage;
const { fmtBytes, fmtUnit, pct, el, row, safeRe, parseTree, select, topOf, makeFlame } = window.yingUI;
let token = sessionStorage.getItem('ying-token');
let mode = 'live';

document.addEventListener('securitypolicyviolation', (e) =>
	P.csp.push(e.violatedDirective + ' ' + e.blockedURI));
try {
	new PerformanceObserver((l) => { for (const e of l.getEntries()) P.longTasks.push(e.duration); })
		.observe({ type: 'longtask', buffered: true });
} catch (e) { /* no long-task timing in this browser */ }

/* ---- fetching ---------------------------------------------------------------- */

class HttpError extends Error {
	constructor(status, text) { super(text); this.status = status; }
}

/* fetch path (same origin): {status, text}; a 401 opens the form; a 503
 * with Retry-After (dumps paced, one in flight) is retried, up to 3 times.
 * preloaded: the request GET / preloads when there is no token (its Link
 * header, YI_PAGE_PRELOAD in live_page.h): asked for the way the preload
 * was made (credentials "same-origin", the default cache mode) so that the
 * browser answers it from the preload instead of a second dump. */
async function api(path, method, preloaded) {
	const h = {};
	if (token) h.Authorization = 'Bearer ' + token;
	for (let tries = 0; ; tries++) {
		const r = await fetch(path, preloaded && !token && !tries ? { credentials: 'same-origin' } :
			{ method: method || 'GET', headers: h, cache: 'no-store', credentials: 'omit' });
		const text = await r.text(), after = +r.headers.get('Retry-After');
		if (r.status === 503 && after > 0 && after <= 30 && tries < 3) {
			$('status').textContent = 'the endpoint is busy: retrying in ' + after + ' s';
			await new Promise((res) => setTimeout(res, after * 1000));
			continue;
		}
		if (r.status === 401) askToken(text);
		return { status: r.status, text };
	}
}
async function getJSON(path, method, preloaded) {
	const r = await api(path, method, preloaded);
	if (r.status !== 200) throw new HttpError(r.status, r.text.trim());
	return JSON.parse(r.text);
}

/* A panel's note: "not available: <reason>" on 404, the error otherwise. */
function note(panel, err) {
	const d = $(panel).querySelector('.na');
	if (!err) { d.classList.add('hidden'); return; }
	d.textContent = (err.status === 404 ? 'not available: ' :
		'error' + (err.status ? ' ' + err.status : '') + ': ') + err.message;
	d.classList.remove('hidden');
	if (err.status !== 404) P.errors.push(panel + ': ' + err.message);
}

/* ---- the token --------------------------------------------------------------- */

function askToken(reason) {
	if (token) $('login-msg').textContent = 'refused: ' + reason.trim();   /* a typed one */
	token = null;
	sessionStorage.removeItem('ying-token');
	$('main').classList.add('hidden');
	$('login').classList.remove('hidden');
	$('token').focus();
}
$('login').addEventListener('submit', (e) => {
	e.preventDefault();
	token = $('token').value;
	$('login-msg').textContent = '';
	sessionStorage.setItem('ying-token', token);
	$('token').value = '';
	boot();
});

const flame = P.flame = makeFlame($('flame'));
const dflame = P.dflame = makeFlame($('dflame'));

/* ---- the heap: tree, selection, table ----------------------------------------- */

let treePreload = true;
let heapTree = null, heapRows = [], sortKey = 'flat', fallbackTop = null, topMax = 100, byTop = null;

function selection() {
	return { focus: safeRe($('focus').value), ignore: safeRe($('ignore').value) };
}

async function loadHeap() {
	const si = $('sample-index').value;
	performance.mark('tree-fetch');
	const t0 = performance.now();
	try {
		const pre = treePreload;      /* only the first request: later ones are fresh */
		treePreload = false;
		const j = await getJSON('/debug/heap?format=tree&sample_index=' + si, 'GET', pre);
		P.timings.treeFetch = performance.now() - t0;
		const t1 = performance.now();
		heapTree = parseTree(j);
		P.timings.treeParse = performance.now() - t1;
		fallbackTop = null;
		note('p-heap', null);
	} catch (err) {
		heapTree = null;
		if (err.status === 401) return;
		/* no tree: the server's own top table, and the reason */
		note('p-heap', err);
		try {
			fallbackTop = await getJSON('/debug/heap?format=json&sample_index=' + si);
		} catch (e2) { fallbackTop = null; }
	}
	await loadRowsBy(si);
	applySelection();
}

/* rows per line or per stack: the server's top table (?by=); per function
 * the table comes from the tree, on the flame graph's selection */
async function loadRowsBy(si) {
	const by = $('rows-by').value;
	byTop = null;
	if (by === 'function') return;
	try {
		byTop = await getJSON('/debug/heap?format=json&by=' + by + '&sample_index=' + si);
	} catch (err) { if (err.status !== 401) note('p-heap', err); }
}

function applySelection() {
	const s = selection(), t0 = performance.now();
	/* the server's rows (by line or stack, or without a tree): focus and
	 * ignore keep the rows whose function (a stack: any of its frames)
	 * matches */
	const serverRows = (top) => {
		for (const r of top.rows)       /* a stack: its frames, leaf first */
			if (r.frames && r.label === undefined)
				r.label = r.frames.map((f) => f.function).join(' \u2190 ');
		const name = (r) => r.label || r.function;
		const rows = top.rows.filter((r) => (!s.focus || s.focus.test(name(r))) &&
			!(s.ignore && s.ignore.test(name(r))));
		rows.total = s.focus || s.ignore ? rows.reduce((a, r) => a + r.flat, 0) : top.filtered_total;
		rows.unit = top.unit;
		return rows;
	};
	if (heapTree) {
		const sel = select(heapTree, s.focus, s.ignore);
		P.timings.layout = performance.now() - t0;
		flame.set(heapTree, sel);
		flame.setSearch(safeRe($('search').value));
		if (byTop) heapRows = serverRows(byTop);
		else {
			heapRows = topOf(heapTree, sel);
			heapRows.total = sel.v[0];
			heapRows.unit = heapTree.unit;
		}
	} else if (byTop || fallbackTop) {
		heapRows = serverRows(byTop || fallbackTop);
	} else heapRows = [];
	drawTop();
	P.selections = (P.selections || 0) + 1;
}

function drawTop() {
	const tb = $('top').querySelector('tbody'), f = fmtUnit(heapRows.unit),
		flt = safeRe($('filter').value), total = heapRows.total || 0;
	const rows = heapRows.filter((r) => !flt || flt.test(r.label || r.function));
	rows.sort((a, b) => b[sortKey] - a[sortKey] || b.cum - a.cum);
	const shown = rows.slice(0, topMax), frag = document.createDocumentFragment();
	for (const r of shown)
		row(frag, [f(r.flat), pct(r.flat, total), f(r.cum), pct(r.cum, total), r.label || r.function,
			r.file ? r.file + ':' + r.line : '']).dataset.fn = r.function;
	tb.replaceChildren(frag);
	const what = { function: ' functions', line: ' lines', stack: ' stacks' }[$('rows-by').value];
	$('table-msg').textContent = rows.length + what +
		(rows.length > shown.length ? ', the first ' + shown.length + ' shown (click for more)' : '') +
		', total ' + f(total);
}

$('table-msg').addEventListener('click', () => { topMax += 500; drawTop(); });
$('top').querySelector('thead').addEventListener('click', (e) => {
	if (e.target.dataset.sort) { sortKey = e.target.dataset.sort; drawTop(); }
});
$('top').querySelector('tbody').addEventListener('click', (e) => {
	const tr = e.target.closest('tr');
	if (tr) { $('search').value = '^' + tr.dataset.fn.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$'; onSearch(); }
});
function onSearch() {
	const re = safeRe($('search').value);
	flame.setSearch(re);
	dflame.setSearch(re);
	$('search-msg').textContent = re && flame.tree ? flame.matches + ' frames match, ' +
		fmtUnit(flame.tree.unit)(flame.matchValue) + ' (' + pct(flame.matchValue, flame.sel.v[0]) + ')' : '';
}
const timers = {};
function later(key, fn) { clearTimeout(timers[key]); timers[key] = setTimeout(fn, 150); }
const reselect = () => { applySelection(); applyDiffSelection(); };
$('focus').addEventListener('input', () => later('sel', reselect));
$('ignore').addEventListener('input', () => later('sel', reselect));
$('search').addEventListener('input', () => later('search', onSearch));
$('filter').addEventListener('input', () => later('filter', drawTop));
$('sample-index').addEventListener('change', () => { loadHeap(); });
$('rows-by').addEventListener('change', async () => {
	await loadRowsBy($('sample-index').value);
	applySelection();
});
$('refresh').addEventListener('click', () => { loadHeap(); });
$('reset-zoom').addEventListener('click', () => { flame.zoomTo(0); dflame.zoomTo(0); });

/* ---- memory over time ----------------------------------------------------------- */

const hist = { columns: null, fine: [], coarse: [], events: [], limit: null, last: 0 };
const STACK = [['live heap', '#4e79a7'], ['fragmentation', '#f28e2b'],
	['metadata', '#b07aa1'], ['other resident', '#bab0ac']];
const HEAPC = ['#2ca02c', '#17becf', '#8c564b', '#9467bd', '#bcbd22'];

function mergeHistory(j) {
	if (!hist.columns || j.columns.join() !== hist.columns.join()) {
		hist.columns = j.columns; hist.fine = []; hist.coarse = []; hist.events = [];
	}
	hist.limit = j.limit;
	hist.now = j.now;
	const add = (into, pts, max) => {
		const last = into.length ? into[into.length - 1][0] : -Infinity;
		for (const p of pts) if (p[0] > last) into.push(p);
		if (into.length > max) into.splice(0, into.length - max);
	};
	add(hist.fine, (j.fine && j.fine.points) || [], 600);
	add(hist.coarse, (j.coarse && j.coarse.points) || [], 1440);
	const seen = new Set(hist.events.map((e) => e.t + e.kind + e.name));
	for (const e of j.events || []) if (!seen.has(e.t + e.kind + e.name)) hist.events.push(e);
	if (hist.fine.length) hist.last = hist.fine[hist.fine.length - 1][0];
	updateDumpChoices();
}

async function loadHistory(poll) {
	try {
		const q = poll && hist.last ? '?since=' + hist.last : '';
		mergeHistory(await getJSON('/debug/history' + q));
		note('p-chart', null);
	} catch (err) {
		if (err.status === 401) return;
		note('p-chart', err);
	}
	drawChart();
}

function drawChart() {
	const c = $('chart'), ctx = c.getContext('2d'), w = c.clientWidth || 800, h = 240;
	const dpr = window.devicePixelRatio || 1;
	c.width = Math.round(w * dpr); c.height = Math.round(h * dpr);
	ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
	ctx.clearRect(0, 0, w, h);
	if (!hist.columns) return;
	const col = (k) => hist.columns.indexOf(k);
	const first = hist.fine.length ? hist.fine[0][0] : Infinity;
	const range = +$('range').value, end = hist.now || hist.last;
	const pts = hist.coarse.filter((p) => p[0] < first).concat(hist.fine)
		.filter((p) => p[0] >= end - range);
	const get = (p, k) => { const i = col(k); return i >= 0 && p[i] != null ? p[i] : null; };
	const heaps = hist.columns.filter((k) => k.startsWith('heap:'));
	const S = { t: [], rss: [], allocated: [], active: [], metadata: [], resident: [], heaps: {} };
	for (const k of heaps) S.heaps[k.slice(5)] = [];
	for (const p of pts) {
		S.t.push(p[0]);
		for (const k of ['rss', 'allocated', 'active', 'metadata', 'resident']) S[k].push(get(p, k));
		for (const k of heaps) S.heaps[k.slice(5)].push(get(p, k));
	}
	P.series = S;
	c.dataset.points = pts.length;
	if (!pts.length) return;
	let ymax = 1;
	for (const p of pts) for (let i = 1; i < p.length; i++)
		if (p[i] != null && hist.columns[i] !== 'retained') ymax = Math.max(ymax, p[i]);
	const showLimit = hist.limit && hist.limit < 4 * ymax;
	if (showLimit) ymax = Math.max(ymax, hist.limit);
	ymax *= 1.08;
	const L = 64, R = 8, T = 8, B = 20, t0 = Math.min(S.t[0], end - 10), t1 = end;
	const X = (t) => L + (w - L - R) * (t - t0) / Math.max(t1 - t0, 1);
	const Y = (v) => h - B - (h - T - B) * v / ymax;
	/* axes */
	ctx.font = '11px system-ui, sans-serif'; ctx.fillStyle = '#555'; ctx.strokeStyle = '#eee';
	for (let k = 0; k <= 4; k++) {
		const v = ymax * k / 4.4, y = Y(v);
		ctx.beginPath(); ctx.moveTo(L, y); ctx.lineTo(w - R, y); ctx.stroke();
		ctx.fillText(fmtBytes(v), 2, y + 4);
	}
	for (let k = 0; k <= 4; k++) {
		const t = t0 + (t1 - t0) * k / 4, d = new Date(t * 1000);
		ctx.fillText(d.toTimeString().slice(0, 8), Math.min(X(t) - 20, w - 52), h - 5);
	}
	/* the jemalloc breakdown, stacked */
	const parts = S.t.map((_, i) => {
		const al = S.allocated[i] || 0, ac = S.active[i] || al, me = S.metadata[i] || 0,
			re = S.resident[i] || 0;
		return [al, Math.max(ac - al, 0), me, Math.max(re - ac - me, 0)];
	});
	const base = new Float64Array(S.t.length);
	STACK.forEach((s, k) => {
		ctx.beginPath();
		S.t.forEach((t, i) => ctx.lineTo(X(t), Y(base[i] + parts[i][k])));
		for (let i = S.t.length - 1; i >= 0; i--) ctx.lineTo(X(S.t[i]), Y(base[i]));
		ctx.closePath(); ctx.fillStyle = s[1]; ctx.globalAlpha = 0.55; ctx.fill(); ctx.globalAlpha = 1;
		S.t.forEach((_, i) => { base[i] += parts[i][k]; });
	});
	const line = (vals, colour, dash) => {
		ctx.beginPath(); ctx.setLineDash(dash || []); ctx.strokeStyle = colour; ctx.lineWidth = 1.6;
		let on = false;
		vals.forEach((v, i) => {
			if (v == null) { on = false; return; }
			if (on) ctx.lineTo(X(S.t[i]), Y(v)); else ctx.moveTo(X(S.t[i]), Y(v));
			on = true;
		});
		ctx.stroke(); ctx.setLineDash([]); ctx.lineWidth = 1;
	};
	line(S.rss, '#111');
	heaps.forEach((k, i) => line(S.heaps[k.slice(5)], HEAPC[i % HEAPC.length], [5, 3]));
	if (showLimit) {
		ctx.strokeStyle = '#d00'; ctx.setLineDash([8, 4]);
		ctx.beginPath(); ctx.moveTo(L, Y(hist.limit)); ctx.lineTo(w - R, Y(hist.limit)); ctx.stroke();
		ctx.setLineDash([]); ctx.fillStyle = '#d00'; ctx.fillText('limit', w - R - 30, Y(hist.limit) - 3);
	}
	/* events: reports, snapshots, limits, peaks, dumps */
	const mk = { report: '#999', snapshot: '#0a7', limit: '#d00', peak: '#e69500', dump: '#555' };
	for (const e of hist.events) {
		if (e.t < t0 || e.t > t1) continue;
		ctx.strokeStyle = mk[e.kind] || '#999';
		ctx.beginPath(); ctx.moveTo(X(e.t), T); ctx.lineTo(X(e.t), h - B); ctx.stroke();
		if (e.kind !== 'report') {
			ctx.fillStyle = ctx.strokeStyle;
			ctx.fillText(e.kind === 'snapshot' ? e.name : e.kind[0], X(e.t) + 2, T + 10);
		}
	}
	c.dataset.lastRss = S.rss[S.rss.length - 1];
	c.dataset.lastAllocated = S.allocated[S.allocated.length - 1];
	const lg = $('chart-legend');
	lg.replaceChildren();
	const item = (name, colour, value) => {
		const s = el('span'), i = el('i');
		i.style.background = colour;
		s.append(i, name + (value != null ? ' ' + fmtBytes(value) : ''));
		lg.appendChild(s);
	};
	const li = S.t.length - 1;
	/* offline (ying serve) a dump has no RSS nor jemalloc totals: no legend for them */
	if (S.rss[li] != null) item('rss', '#111', S.rss[li]);
	if (S.allocated[li] != null) STACK.forEach((s, k) => item(s[0], s[1], parts[li][k]));
	heaps.forEach((k, i) => item('heap ' + k.slice(5), HEAPC[i % HEAPC.length], S.heaps[k.slice(5)][li]));
	if (hist.limit) item('limit' + (showLimit ? '' : ' (off the chart)'), '#d00', hist.limit);
}
$('range').addEventListener('change', drawChart);
window.addEventListener('resize', drawChart);

/* ---- snapshot and diff -------------------------------------------------------- */

let snapNames = [], dumpNames = [], reportNames = [], diffTree = null;

/* the diff's points: snapshots, then (offline) every dump or (live) the
 * dumps of the growth reports the history's events name ("report:NAME"
 * for the endpoint), then now */
function updateDumpChoices() {
	const d = hist.events.filter((e) => e.kind === 'dump').map((e) => e.name);
	const r = mode === 'live' ? hist.events.filter((e) => e.kind === 'report' &&
		/\.heap$/.test(e.name)).map((e) => e.name) : [];
	if (d.join() !== dumpNames.join() || r.join() !== reportNames.join()) {
		dumpNames = d;
		reportNames = r;
		fillChoices();
	}
}
function fillChoices() {
	const all = snapNames.map((n) => [n, n])
		.concat(dumpNames.filter((n) => !snapNames.includes(n)).map((n) => [n, n]))
		.concat(reportNames.map((n) => ['report:' + n, 'report ' + n.replace(/\.heap$/, '')]));
	const fill = (sel, first) => {
		const keep = sel.value;
		sel.replaceChildren();
		if (first) sel.appendChild(el('option', first)).value = '';
		for (const [v, label] of all) sel.appendChild(el('option', label)).value = v;
		if (all.some(([v]) => v === keep) || keep === '') sel.value = keep;
	};
	fill($('diff-base'), null);
	fill($('diff-now'), 'now');
}
async function loadSnapshots() {
	try {
		const j = await getJSON('/debug/heap/snapshot');
		snapNames = j.snapshots.map((s) => s.name);
		note('p-diff', null);
	} catch (err) {
		if (err.status !== 401 && !dumpNames.length) note('p-diff', err);
	}
	fillChoices();
}
$('snap-take').addEventListener('click', async () => {
	const n = $('snap-name').value.trim();
	try {
		await getJSON('/debug/heap/snapshot?name=' + encodeURIComponent(n), 'POST');
		$('diff-msg').textContent = 'snapshot ' + n + ' taken';
		await loadSnapshots();
		$('diff-base').value = n;
		const m = /^(.*?)(\d+)$/.exec(n);
		$('snap-name').value = m ? m[1] + (+m[2] + 1) : n + '2';
		loadHistory(true);
	} catch (err) { $('diff-msg').textContent = 'snapshot refused: ' + err.message; }
});
$('diff-go').addEventListener('click', () => runDiff());

async function runDiff() {
	const base = $('diff-base').value, now = $('diff-now').value;
	if (!base) { $('diff-msg').textContent = 'take a snapshot or pick a point first'; return; }
	const q = 'base=' + encodeURIComponent(base) + (now ? '&now=' + encodeURIComponent(now) : '') +
		'&sample_index=' + $('sample-index').value;
	$('diff-msg').textContent = 'diffing…';
	const [dj, lj, tj] = await Promise.allSettled([getJSON('/debug/heap/diff?format=json&' + q),
		getJSON('/debug/heap/leaks'), getJSON('/debug/heap/diff?format=tree&' + q)]);
	if (dj.status === 'rejected') {
		$('diff-msg').textContent = '';
		note('p-diff', dj.reason);
		return;
	}
	note('p-diff', null);
	const d = dj.value, f = fmtUnit(d.unit), verdicts = new Map();
	if (lj.status === 'fulfilled') for (const s of lj.value.sites) verdicts.set(s.function, s);
	$('diff-msg').textContent = lj.status === 'fulfilled' ? '' :
		'verdicts not available: ' + lj.reason.message;
	$('diff-summary').textContent = (d.base || base) + ' → ' + (d.now || 'now') + ': ' +
		f(d.base_total) + ' → ' + f(d.now_total) + ', change ' + f(d.delta) + ' [' + f(d.delta_lo) +
		', ' + f(d.delta_hi) + ']' + (d.significant ? ', significant' : ', within the noise');
	let scale = 1;
	for (const r of d.rows) scale = Math.max(scale, Math.abs(r.delta_lo), Math.abs(r.delta_hi));
	const tb = $('growth').querySelector('tbody'), frag = document.createDocumentFragment();
	P.diffRows = [];
	for (const r of d.rows.slice(0, 300)) {
		const v = verdicts.get(r.function), bar = el('td', null, 'bar');
		const pos = (x) => (50 + 50 * x / scale).toFixed(2) + '%';
		const z = el('div', null, 'eb-zero'), seg = el('div', null, 'eb'), mid = el('div', null, 'eb-mid');
		z.style.left = '50%';
		seg.style.left = pos(r.delta_lo);
		seg.style.width = (50 * (r.delta_hi - r.delta_lo) / scale).toFixed(2) + '%';
		mid.style.left = pos(r.delta);
		bar.append(z, seg, mid);
		bar.title = '[' + f(r.delta_lo) + ', ' + f(r.delta_hi) + ']' + (r.significant ? ' significant' : '');
		const leak = v && v.verdict === 'leak';
		const tr = row(frag, [r.function, f(r.base), f(r.now), (r.delta > 0 ? '+' : '') + f(r.delta) +
			(r.significant ? ' *' : ''), bar, v ? v.verdict : '', v ? fmtBytes(v.rate) + '/h' : ''],
		leak ? 'leak' : '');
		if (v) tr.title = v.reason;
		tr.dataset.fn = r.function;
		P.diffRows.push({ function: r.function, delta: r.delta, significant: r.significant,
			verdict: v ? v.verdict : null, red: leak });
	}
	tb.replaceChildren(frag);
	if (tj.status === 'fulfilled') {
		diffTree = parseTree(tj.value);
		applyDiffSelection();
	} else {
		diffTree = null;
		$('diff-msg').textContent += ' differential flame graph: ' + tj.reason.message;
	}
	P.diffDone = (P.diffDone || 0) + 1;
}
function applyDiffSelection() {
	if (!diffTree) return;
	const s = selection();
	dflame.set(diffTree, select(diffTree, s.focus, s.ignore));
}

/* ---- RSS breakdown, processes, giant allocations, sampling --------------------- */

async function loadMemory() {
	try {
		const m = await getJSON('/debug/memory?format=json&sites=0'), box = $('memory');
		note('p-memory', null);
		const t = el('table'), tb = el('tbody');
		row(tb, [el('th', 'part'), el('th', 'group'), el('th', 'bytes'), el('th', 'of rss')]);
		for (const p of m.parts) {
			const b = el('td'), s = el('span', null, 'membar');
			s.style.width = Math.round(150 * p.bytes / (m.rss || 1)) + 'px';
			b.appendChild(s);
			row(tb, [p.name, p.group, fmtBytes(p.bytes), b]);
		}
		t.appendChild(tb);
		const ul = el('ul', null, 'advice');
		for (const a of m.advice || []) ul.appendChild(el('li', a.text));
		const head = el('p', 'rss ' + fmtBytes(m.rss) + ' (pid ' + m.pid + ', ' + m.threads + ' threads)' +
			(m.limit ? ', limit ' + fmtBytes(m.limit.bytes) + (m.limit.eta ? ', reached in about ' +
				Math.round(m.limit.eta) + ' s at the trend' : '') : ''));
		const apart = el('p', 'apart: ' + (m.apart || []).map((a) => a.name + ' ' + fmtBytes(a.bytes)).join(', '));
		box.replaceChildren(head, t, apart, m.advice && m.advice.length ? ul : el('p', 'no advice'));
	} catch (err) { if (err.status !== 401) note('p-memory', err); }
}

async function loadProcesses() {
	try {
		const j = await getJSON('/debug/processes'), t = el('table'), tb = el('tbody');
		note('p-procs', null);
		row(tb, ['pid', 'program', 'role', 'rss', 'live heap', 'profiled'].map((h) => el('th', h)));
		for (const p of j.processes)
			row(tb, [String(p.pid), p.program + (p.head ? ' (head)' : ''), p.role || '', fmtBytes(p.rss),
				fmtBytes(p.live_heap), p.profiled ? 'yes' : 'no']);
		t.appendChild(tb);
		$('procs').replaceChildren(t);
	} catch (err) { if (err.status !== 401) note('p-procs', err); }
}

async function loadGiant() {
	try {
		const j = await getJSON('/debug/heap/giant'), t = el('table'), tb = el('tbody');
		note('p-giant', null);
		row(tb, ['seq', 'size', 'kind', 'function'].map((h) => el('th', h)));
		for (const r of (j.records || []).slice(-50).reverse())
			row(tb, [String(r.seq), fmtBytes(r.size), r.kind, r.function || '']);
		t.appendChild(tb);
		$('giant').replaceChildren(el('p', 'threshold ' + fmtBytes(j.threshold) + ', ' +
			(j.sites || []).length + ' sites'), t);
	} catch (err) { if (err.status !== 401) note('p-giant', err); }
}

async function loadProf() {
	try {
		const j = await getJSON('/debug/prof'), p = j.prof || {};
		note('p-prof', null);
		$('prof').textContent = 'profiling ' + (p.enabled ? (p.active ? 'on' : 'paused') : 'off') +
			', one sample per ' + fmtBytes(p.sample_period) + ' (lg_prof_sample ' + p.lg_sample + ')';
		if (document.activeElement !== $('lg')) $('lg').value = p.lg_sample;
		return j;
	} catch (err) { if (err.status !== 401) note('p-prof', err); return null; }
}
$('lg-go').addEventListener('click', async () => {
	try {
		await getJSON('/debug/prof/sample?lg=' + encodeURIComponent($('lg').value), 'POST');
		$('lg-msg').textContent = 'set';
	} catch (err) { $('lg-msg').textContent = 'refused: ' + err.message; }
	loadProf();
});

/* ---- start ----------------------------------------------------------------------- */

let started = false, shown = false;

async function boot() {
	/* everything the first view needs at once; a 401 on any brings the form up */
	$('login').classList.add('hidden');
	$('main').classList.remove('hidden');
	/* the first view is drawn unseen and shown whole: the browser lays out,
	 * paints and rasters the page once, not once per part as each arrives */
	if (!shown) $('main').classList.add('veiled');
	try {
		const ui = getJSON('/debug/ui').then((u) => {
			mode = u.mode || 'live';
			$('who').textContent = (u.program || '') + (u.pid != null ? ' pid ' + u.pid : '') +
				(mode === 'serve' ? ' (offline)' : '');
			if (mode !== 'live') for (const e of document.querySelectorAll('.live-only')) e.classList.add('hidden');
		}, () => { $('who').textContent = location.host; });
		await Promise.all([ui, loadHistory(false), loadHeap()]);
		if (!$('login').classList.contains('hidden')) return;      /* a 401: the form is up */
		await flame.whenDrawn();
		shown = true;
	} finally {
		$('main').classList.remove('veiled');
	}
	/* the next frame begins once the one showing the first view is made
	 * (style, layout, paint, commit; raster follows on other threads) */
	await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
	performance.mark('ying-usable');
	P.usable = true;
	$('status').textContent = 'usable in ' + Math.round(performance.now()) + ' ms';
	await Promise.all([loadSnapshots(), loadMemory(), loadProcesses(), loadGiant(), loadProf()]);
	P.ready = true;
	if (!started) {
		started = true;
		setInterval(() => { if (!$('main').classList.contains('hidden')) loadHistory(true); }, 2000);
	}
}
boot().catch((e) => { P.errors.push(String(e)); $('status').textContent = String(e); });
})();
