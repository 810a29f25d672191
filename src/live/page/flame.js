/* flame.js: the flame graph and the trees of the live page (served as
 * /ui/flame.js, loaded before app.js).
 *
 * A tree of GET /debug/heap?format=tree (or /debug/heap/diff?format=tree)
 * becomes flat typed arrays in preorder, so a node's subtree is the index
 * range [i, end[i]): the selection (focus/ignore), the layout and the top
 * table are O(nodes), and a draw only visits frames at least a pixel wide
 * (a narrower frame's subtree is skipped whole).  Drawing is coalesced into
 * one requestAnimationFrame.  Exposes window.yingUI (the helpers app.js uses)
 * and, per graph, the state the browser test reads (rootName, frameRect,
 * matches).
 */
'use strict';
(function () {
const $ = (id) => document.getElementById(id);
const P = window.yingPage = { usable: false, series: null, errors: [], csp: [],
	longTasks: [], timings: {}, diffRows: [] };
/* ---- formatting --------------------------------------------------------------- */

function fmtBytes(n) {
	if (n == null || isNaN(n)) return '–';
	const a = Math.abs(n), u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
	let i = 0, v = a;
	while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
	return (n < 0 ? '-' : '') + (i ? v.toFixed(v < 10 ? 2 : 1) : v.toFixed(0)) + ' ' + u[i];
}
function fmtCount(n) {
	if (n == null || isNaN(n)) return '–';
	return Math.round(n).toLocaleString('en-US');
}
function fmtUnit(unit) { return unit === 'bytes' || unit === 'bytes/hour' ? fmtBytes : fmtCount; }
function pct(a, b) { return b ? (100 * a / b).toFixed(1) + ' %' : '–'; }
function el(tag, text, cls) {
	const e = document.createElement(tag);
	if (text != null) e.textContent = text;
	if (cls) e.className = cls;
	return e;
}
function row(tbody, cells, cls) {
	const tr = el('tr', null, cls);
	for (const c of cells) tr.appendChild(c instanceof Node ? c : el('td', c));
	tbody.appendChild(tr);
	return tr;
}
function safeRe(s) {
	if (!s) return null;
	try { return new RegExp(s); } catch (e) { return new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')); }
}
function hashHue(s) {
	let h = 0;
	for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
	return Math.abs(h);
}

/* ---- trees: /debug/heap?format=tree and /debug/heap/diff?format=tree ------------ */

function parseTree(j) {
	const f = j.fields, s = f.length, nodes = j.nodes, n = (nodes.length / s) | 0;
	const at = (k) => f.indexOf(k);
	const ip = at('parent'), inm = at('name'), ifl = at('file'), il = at('line'),
		iv = at('value'), is = at('self'), ib = at('base');
	const t = { n, names: j.names, files: j.files, unit: j.unit, total: j.total,
		sampleIndex: j.sample_index, diff: ib >= 0,
		parent: new Int32Array(n), name: new Int32Array(n), file: new Int32Array(n),
		line: new Int32Array(n), value: new Float64Array(n), self: new Float64Array(n),
		base: ib >= 0 ? new Float64Array(n) : null };
	for (let i = 0, o = 0; i < n; i++, o += s) {
		t.parent[i] = nodes[o + ip]; t.name[i] = nodes[o + inm];
		t.file[i] = nodes[o + ifl]; t.line[i] = nodes[o + il];
		t.value[i] = nodes[o + iv]; t.self[i] = nodes[o + is];
		if (ib >= 0) t.base[i] = nodes[o + ib];
	}
	t.end = new Int32Array(n);
	t.depth = new Int32Array(n);
	for (let i = 0; i < n; i++) {
		t.end[i] = i + 1;
		if (i) t.depth[i] = t.depth[t.parent[i]] + 1;
	}
	for (let i = n - 1; i > 0; i--)
		if (t.end[i] > t.end[t.parent[i]]) t.end[t.parent[i]] = t.end[i];
	return t;
}

/* The selection: only stacks through a frame matching focus, none through
 * one matching ignore; v (now) and b (base) totals per node, x the offsets. */
function select(t, focus, ignore) {
	const n = t.n, nm = t.names.length;
	let v = t.value, b = t.base;
	if (focus || ignore) {
		const fm = new Uint8Array(nm), im = new Uint8Array(nm);
		for (let k = 0; k < nm; k++) {
			fm[k] = focus && focus.test(t.names[k]) ? 1 : 0;
			im[k] = ignore && ignore.test(t.names[k]) ? 1 : 0;
		}
		const inF = new Uint8Array(n), inI = new Uint8Array(n);
		let bself = null;
		if (b) {
			bself = Float64Array.from(b);
			for (let i = n - 1; i > 0; i--) bself[t.parent[i]] -= b[i];
		}
		v = new Float64Array(n);
		const nb = b ? new Float64Array(n) : null;
		for (let i = 0; i < n; i++) {
			const p = t.parent[i], k = t.name[i];
			inF[i] = fm[k] | (p >= 0 ? inF[p] : 0);
			inI[i] = im[k] | (p >= 0 ? inI[p] : 0);
			const keep = (!focus || inF[i]) && !(ignore && inI[i]);
			v[i] = keep ? t.self[i] : 0;
			if (nb) nb[i] = keep ? Math.max(0, bself[i]) : 0;
		}
		for (let i = n - 1; i > 0; i--) {
			v[t.parent[i]] += v[i];
			if (nb) nb[t.parent[i]] += nb[i];
		}
		b = nb;
	}
	const x = new Float64Array(n), cur = new Float64Array(n);
	for (let i = 1; i < n; i++) {
		const p = t.parent[i];
		x[i] = cur[p];
		cur[p] += v[i];
		cur[i] = x[i];
	}
	return { v, b, x };
}

/* The top table of a selection: flat (own) and cum (outermost frame of each
 * function on a path: recursion counted once) per function. */
function topOf(t, sel) {
	const nm = t.names.length, flat = new Float64Array(nm), cum = new Float64Array(nm),
		active = new Int32Array(nm), first = new Int32Array(nm).fill(-1), stack = [];
	for (let i = 1; i < t.n; i++) {
		while (stack.length && t.end[stack[stack.length - 1]] <= i) active[t.name[stack.pop()]]--;
		const k = t.name[i], v = sel.v[i];
		if (v === 0) { i = t.end[i] - 1; continue; }
		let own = v;
		for (let c = i + 1; c < t.end[i]; c = t.end[c]) own -= sel.v[c];
		flat[k] += own;
		if (active[k] === 0) cum[k] += v;
		if (first[k] < 0) first[k] = i;
		active[k]++;
		stack.push(i);
	}
	const rows = [];
	for (let k = 0; k < nm; k++)
		if (cum[k] > 0 || flat[k] !== 0) {
			const i = first[k];
			rows.push({ function: t.names[k], flat: flat[k], cum: cum[k],
				file: t.files[t.file[i]] || '', line: t.line[i] });
		}
	return rows;
}

/* ---- the flame graph (canvas, icicle: root on top) ------------------------------ */

const ROW = 17;

function makeFlame(canvas) {
	const F = { tree: null, sel: null, zoom: 0, search: null, marks: null, pending: false,
		matches: 0, matchValue: 0, drawn: 0 };
	const ctx = canvas.getContext('2d');
	let charW = 7, maxAbs = 1;

	F.set = (tree, sel) => {
		F.tree = tree; F.sel = sel; F.zoom = 0;
		if (tree.diff) {
			maxAbs = 1;
			for (let i = 1; i < tree.n; i++) maxAbs = Math.max(maxAbs, Math.abs(sel.v[i] - sel.b[i]));
		}
		F.setSearch(F.search);
	};
	F.setSearch = (re) => {
		F.search = re;
		const t = F.tree;
		if (!t) return;
		F.marks = null; F.matches = 0; F.matchValue = 0;
		if (re) {
			F.marks = new Uint8Array(t.names.length);
			for (let k = 0; k < t.names.length; k++) F.marks[k] = re.test(t.names[k]) ? 1 : 0;
			/* the matched total: outermost matching frames only */
			for (let i = 1; i < t.n; i++) {
				if (!F.marks[t.name[i]] || F.sel.v[i] === 0) continue;
				F.matches++;
				F.matchValue += F.sel.v[i];
				i = t.end[i] - 1;
			}
		}
		F.redraw();
	};
	F.redraw = () => {
		if (F.pending) return;
		F.pending = true;
		requestAnimationFrame(() => { F.pending = false; draw(); });
	};
	/* resolved once no draw is pending (the one scheduled has run) */
	const waiters = [];
	F.whenDrawn = () => F.pending ? new Promise((res) => waiters.push(res)) : Promise.resolve();
	F.rootName = () => F.tree ? F.tree.names[F.tree.name[F.zoom]] : null;
	F.zoomTo = (i) => { F.zoom = i; F.redraw(); };

	function geom() {
		const t = F.tree, z = F.zoom, w = canvas.clientWidth || 800;
		return { t, z, w, scale: w / (F.sel.v[z] || 1), x0: F.sel.x[z], dz: t.depth[z] };
	}
	function colour(i) {
		const t = F.tree, k = t.name[i];
		if (F.marks && F.marks[k]) return '#d63af9';
		if (t.diff) {
			const d = F.sel.v[i] - F.sel.b[i], a = Math.min(1, Math.abs(d) / maxAbs);
			if (Math.abs(d) < 1e-9) return '#dcdcdc';
			const l = Math.round(92 - 42 * Math.sqrt(a));
			return d > 0 ? 'hsl(0,85%,' + l + '%)' : 'hsl(215,80%,' + l + '%)';
		}
		const h = hashHue(t.names[k]);
		return 'hsl(' + (8 + h % 42) + ',' + (70 + h % 25) + '%,' + (55 + (h >> 8) % 12) + '%)';
	}
	function draw() {
		const t0 = performance.now();
		if (!F.tree) { while (waiters.length) waiters.shift()(); return; }
		const g = geom(), t = g.t, sel = F.sel, e = t.end[g.z];
		let maxD = g.dz;
		for (let i = g.z; i < e;) {
			if (sel.v[i] * g.scale < 1) { i = t.end[i]; continue; }
			if (t.depth[i] > maxD) maxD = t.depth[i];
			i++;
		}
		const dpr = window.devicePixelRatio || 1, hCss = (maxD + 1) * ROW;
		canvas.style.height = hCss + 'px';
		canvas.width = Math.round(g.w * dpr);
		canvas.height = Math.round(hCss * dpr);
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.clearRect(0, 0, g.w, hCss);
		ctx.font = '11px system-ui, sans-serif';
		ctx.textBaseline = 'middle';
		charW = ctx.measureText('mmmmmmmmmm').width / 10 * 0.8;
		let drawn = 0;
		const frame = (i, px, w) => {
			const y = t.depth[i] * ROW;
			ctx.fillStyle = colour(i);
			ctx.fillRect(px, y, Math.max(w - 0.5, 0.5), ROW - 1);
			drawn++;
			if (w > 24) {
				let s = t.names[t.name[i]];
				const fit = Math.floor((w - 6) / charW);
				if (s.length > fit) s = s.slice(0, Math.max(fit - 1, 1)) + '…';
				ctx.fillStyle = '#111';
				ctx.fillText(s, px + 3, y + ROW / 2);
			}
		};
		for (let a = t.parent[g.z]; a >= 0; a = t.parent[a]) frame(a, 0, g.w);   /* the path to the zoom */
		for (let i = g.z; i < e;) {
			const w = sel.v[i] * g.scale;
			if (w < 1) { i = t.end[i]; continue; }
			frame(i, (sel.x[i] - g.x0) * g.scale, w);
			i++;
		}
		F.drawn = drawn;
		const dt = performance.now() - t0;
		P.timings[canvas.id + 'Draw'] = dt;
		if (canvas.id === 'flame' && P.timings.firstFlameDraw == null) P.timings.firstFlameDraw = dt;
		canvas.dataset.root = F.rootName();
		canvas.dataset.drawn = drawn;
		performance.mark(canvas.id + '-drawn');
		while (waiters.length) waiters.shift()();
	}
	/* The node under canvas point (cx, cy) in CSS pixels, or -1. */
	F.at = (cx, cy) => {
		if (!F.tree) return -1;
		const g = geom(), t = g.t, sel = F.sel, d = Math.floor(cy / ROW), X = g.x0 + cx / g.scale;
		if (d < g.dz) {
			let a = g.z;
			while (a >= 0 && t.depth[a] > d) a = t.parent[a];
			return a;
		}
		for (let i = g.z, e = t.end[g.z]; i < e;) {
			const inside = X >= sel.x[i] && X < sel.x[i] + sel.v[i] && sel.v[i] * g.scale >= 1;
			if (inside && t.depth[i] === d) return i;
			i = inside ? i + 1 : t.end[i];
		}
		return -1;
	};
	/* The widest drawn frame named name below the zoom: {x, y, w, h} (CSS px). */
	F.frameRect = (name) => {
		if (!F.tree) return null;
		const g = geom(), t = g.t;
		let best = -1;
		for (let i = g.z + 1; i < t.end[g.z]; i++)
			if (t.names[t.name[i]] === name && (best < 0 || F.sel.v[i] > F.sel.v[best])) best = i;
		if (best < 0 || F.sel.v[best] * g.scale < 1) return null;
		return { x: (F.sel.x[best] - g.x0) * g.scale, y: t.depth[best] * ROW,
			w: F.sel.v[best] * g.scale, h: ROW - 1 };
	};
	canvas.addEventListener('click', (ev) => {
		const r = canvas.getBoundingClientRect(), i = F.at(ev.clientX - r.left, ev.clientY - r.top);
		if (i >= 0) F.zoomTo(i);
	});
	canvas.addEventListener('mousemove', (ev) => {
		const r = canvas.getBoundingClientRect(), i = F.at(ev.clientX - r.left, ev.clientY - r.top);
		const tip = $('tip');
		if (i < 0) { tip.classList.add('hidden'); return; }
		const t = F.tree, f = fmtUnit(t.unit), v = F.sel.v[i];
		let own = v;
		for (let c = i + 1; c < t.end[i]; c = t.end[c]) own -= F.sel.v[c];
		const file = t.files[t.file[i]];
		let s = t.names[t.name[i]] + '\n' + (file ? file + ':' + t.line[i] : '(no file)') +
			'\n' + f(v) + ' (' + pct(v, F.sel.v[0]) + '), self ' + f(own);
		if (t.diff) s += '\nbase ' + f(F.sel.b[i]) + ', change ' + (v >= F.sel.b[i] ? '+' : '') +
			f(v - F.sel.b[i]);
		tip.textContent = s;
		tip.style.left = Math.min(ev.clientX + 12, window.innerWidth - 320) + 'px';
		tip.style.top = (ev.clientY + 14) + 'px';
		tip.classList.remove('hidden');
	});
	canvas.addEventListener('mouseleave', () => $('tip').classList.add('hidden'));
	window.addEventListener('resize', () => F.redraw());
	return F;
}

window.yingUI = { fmtBytes, fmtCount, fmtUnit, pct, el, row, safeRe, parseTree, select, topOf, makeFlame };
})();
