// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The timechart as one self-contained HTML page: legend, data, a canvas script. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "view/html.h"
#include "view/timechart_html.h"

const char *const tc_task_colour[6] = {
	[SPAN_RUNNING] = "#1f5fbf", [SPAN_RUNQUEUE] = "#e0201c",
	[SPAN_SLEEP] = "#bfe3bf", [SPAN_BLOCKED] = "#f09a10",
	[SPAN_OFF_OTHER] = "#a080c8", [SPAN_UNKNOWN] = "#8c8c8c",
};

/* Idle states shade from light (shallow) to dark (deep) blue-grey. */
static const char *const idle_colour[TC_IDLE_STATES] = {
	"#dcecfc", "#b8d4f0", "#94bce4", "#70a4d8", "#5c8cc0", "#4874a8",
	"#345c90", "#204478", "#1c3c6c", "#183460", "#142c54", "#102448",
	"#0c1c3c", "#081430", "#040c24", "#000418", "#00000c", "#000008",
	"#000004", "#000002",
};

const char *tc_cpu_colour(unsigned int kind)
{
	switch (kind) {
	case TC_CPU_BUSY: return "#2e8b3e";
	case TC_CPU_UNKNOWN: return "#8c8c8c";
	case TC_CPU_LOST: return "#000000";
	case TC_CPU_IDLE_NONE: return "#ececec";
	default:
		return kind - TC_CPU_IDLE0 < TC_IDLE_STATES ?
		       idle_colour[kind - TC_CPU_IDLE0] : "#000000";
	}
}

static const char *const task_kind_name[6] = {
	"running", "waiting for a CPU (run queue)", "sleeping (S)",
	"blocked (D)", "off CPU, other state", "unknown (records lost)",
};

static void b36(FILE *f, uint64_t v)
{
	char buf[16];
	int n = 0;

	do {
		buf[n++] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
		v /= 36;
	} while (v);
	while (n)
		fputc(buf[--n], f);
}

/* Runs as "<kind letter A..X or . for a gap><length base 36>"... */
static void runs(FILE *f, const struct pixrow *r)
{
	uint32_t x = 0;

	fputc('"', f);
	for (size_t i = 0; i < r->n; i++) {
		if (r->runs[i].x0 > x) {
			fputc('.', f);
			b36(f, r->runs[i].x0 - x);
		}
		fputc('A' + r->runs[i].kind, f);
		b36(f, r->runs[i].x1 - r->runs[i].x0);
		x = r->runs[i].x1;
	}
	fputc('"', f);
}

static int by_start(const void *a, const void *b)
{
	const struct tc_lane *x = *(const struct tc_lane *const *)a;
	const struct tc_lane *y = *(const struct tc_lane *const *)b;

	if (x->id.start_ns != y->id.start_ns)
		return x->id.start_ns < y->id.start_ns ? -1 : 1;
	return (x->id.tid > y->id.tid) - (x->id.tid < y->id.tid);
}

static void style(FILE *f)
{
	fprintf(f, "<style>body{margin:0;font:12px sans-serif;background:#fff;color:#000}"
		"#lg{box-sizing:border-box;height:%dpx;padding:4px 8px;overflow:auto}#lg span.k{display:inline-block;width:12px;"
		"height:10px;margin:0 3px 0 10px;border:1px solid #888;vertical-align:middle}"
		"canvas{display:block}#tip{position:fixed;right:4px;top:4px;"
		"background:#ffffe0;border:1px solid #888;padding:2px 4px;display:none}"
		"</style>\n", TC_LEGEND_H);
}

static void swatch(FILE *f, const char *colour, const char *what)
{
	fprintf(f, "<span class=k style=\"background:%s\"></span>%s", colour, what);
}

static void ms(FILE *f, uint64_t ns)
{
	fprintf(f, "%.3f ms", (double)ns / 1e6);
}

struct totals {
	uint64_t merged, inexact, intervals, shown;
	uint64_t err; /* the largest pixrow_error */
};

static void legend(FILE *f, const struct timechart *tc,
		   const struct tc_page *pg, const struct totals *t)
{
	const struct pixscale *sc = &tc->sc;

	fputs("<div id=lg>", f);
	html_notice(f, pg->notice);
	fputs("<b>abicap timechart</b> of ", f);
	html_text(f, pg->title, strlen(pg->title));
	fputs(": from ", f);
	ms(f, pg->since_ns);
	fputs(" after its first record, ", f);
	ms(f, pixscale_end(sc) - sc->t0);
	fprintf(f, " in %u pixels: <b>1 pixel = ", sc->width);
	fprintf(f, "%.3f us</b>; %d CPUs, %zu task lanes", (double)sc->px_ns / 1e3,
		tc->ncpus, (size_t)t->shown);
	if (pg->task_filtered)
		fputs(" (the capture was filtered to some tasks: a CPU's busy "
		      "and idle time is not known, so no CPU lane)", f);
	if (pg->choice->left_out)
		fprintf(f, " of %zu tasks: <b>%zu more tasks have no lane</b> "
			"(past --max-lanes %zu the lanes are the tasks with the "
			"most time on a CPU, then waiting for one; those left out "
			"ran %.3f ms and waited %.3f ms in all)", pg->choice->shown,
			pg->choice->left_out, pg->max_lanes,
			(double)pg->choice->left_out_run_ns / 1e6,
			(double)pg->choice->left_out_wait_ns / 1e6);
	if (pg->choice->filtered)
		fprintf(f, " (%zu more left out by the filters)",
			pg->choice->filtered);
	if (pg->choice->empty)
		fprintf(f, "; %zu tasks seen only in wakeups (no interval "
			"here) have no lane", pg->choice->empty);
	fputs(".<br>Tasks:", f);
	for (int k = 0; k < 6; k++)
		swatch(f, tc_task_colour[k], task_kind_name[k]);
	fputs("<br>CPUs:", f);
	swatch(f, tc_cpu_colour(TC_CPU_BUSY), "busy");
	for (int s = 0; s <= tc->max_idle && s < TC_IDLE_STATES; s++) {
		char what[32];

		snprintf(what, sizeof(what), "idle state %d", s);
		swatch(f, tc_cpu_colour(TC_CPU_IDLE0 + (unsigned int)s), what);
	}
	swatch(f, tc_cpu_colour(TC_CPU_IDLE_NONE), "idle (no state seen)");
	swatch(f, tc_cpu_colour(TC_CPU_UNKNOWN), "unknown");
	swatch(f, tc_cpu_colour(TC_CPU_LOST), "records lost");
	fputs("; the thin row under a CPU: its frequency (darker: higher)<br>", f);
	fprintf(f, "<b>Merged at this scale:</b> %llu of %llu intervals are "
		"shorter than a pixel; %llu pixels hold more than one state (or "
		"part of one) and show one of them, the one owed the most time, "
		"so that the time of any state read off any lane (its pixels "
		"&times; %.3f us) is within %.3f us (%.2f pixels) of the exact "
		"time (in the lane's tooltip). Wakeups: %llu, drawn as %llu "
		"arrows under the lanes, one per wakee and pixel (%llu merged).",
		(unsigned long long)t->merged, (unsigned long long)t->intervals,
		(unsigned long long)t->inexact, (double)sc->px_ns / 1e3,
		(double)t->err / 1e3, (double)t->err / (double)sc->px_ns,
		(unsigned long long)tc->wakeups,
		(unsigned long long)tc->arrows,
		(unsigned long long)tc->arrows_merged);
	fputs("</div>\n", f);
}

static void cpu_data(FILE *f, const struct timechart *tc,
		     const struct tc_page *pg)
{
	bool first = true;

	fputs("\"cpus\":[", f);
	for (int c = 0; c < tc->ncpus; c++) {
		const struct tc_cpu *cp = &tc->cpus[c];

		if ((pg->cpus && !pg->cpus[c]) || pg->task_filtered)
			continue;
		fprintf(f, "%s\n{\"cpu\":%d,\"r\":", first ? "" : ",", c);
		first = false;
		runs(f, &cp->state);
		fputs(",\"f\":", f);
		runs(f, &cp->freq);
		fputs(",\"khz\":[", f);
		for (int k = 0; k < cp->nkhz; k++)
			fprintf(f, "%s%u", k ? "," : "", cp->khz[k]);
		fprintf(f, "],\"busy\":%" PRIu64 ",\"err\":%" PRIu64
			",\"inexact\":%" PRIu64 ",\"irq_wakeups\":%" PRIu64 "}",
			cp->state.total[TC_CPU_BUSY], pixrow_error(&cp->state),
			cp->state.inexact, cp->irq_wakeups);
	}
	fputs("],\n", f);
}

static void lane_data(FILE *f, const struct timechart *tc,
		      const struct tc_lane *l, bool first, const int32_t *pos)
{
	const struct tc_task *t = &tc->tasks[l->task];
	const struct pixrow *r = &l->row;
	uint32_t x = 0;

	fprintf(f, "%s\n{\"tid\":%d,\"tgid\":%d,\"start\":%" PRIu64 ",\"comm\":",
		first ? "" : ",", l->id.tid, l->id.tgid, l->id.start_ns);
	html_json_str(f, t->comm, sizeof(t->comm));
	if (t->first_comm[0]) {
		fputs(",\"was\":", f);
		html_json_str(f, t->first_comm, sizeof(t->first_comm));
	}
	fputs(",\"r\":", f);
	runs(f, r);
	fputs(",\"ns\":[", f);
	for (int k = 0; k < 6; k++)
		fprintf(f, "%s%" PRIu64, k ? "," : "", r->total[k]);
	fprintf(f, "],\"err\":%" PRIu64 ",\"inexact\":%" PRIu64
		",\"wakeups\":%" PRIu64
		",\"waits\":%" PRIu64 ",\"wait_ns\":%" PRIu64 ",\"a\":\"",
		pixrow_error(r), r->inexact, l->wakeups, l->waits, l->wait_ns);
	/* arrows: x (delta, base 36) and the waker's lane position, space separated */
	for (size_t i = 0; i < l->narrows; i++) {
		int32_t from = l->arrows[i].from;

		if (from >= 0)
			from = pos[from];
		b36(f, l->arrows[i].x - x);
		x = l->arrows[i].x;
		fprintf(f, " %d ", from);
	}
	fputs("\"}", f);
}

/* The script that draws the canvas from D (no network, no library). */
static const char draw_js[] =
"const LW=" "%d" ",AX=" "%d" ",RH=" "%d" ",FH=" "%d" ",CH=" "%d" ",LH=" "%d" ";\n"
"const TK=%s,CK=%s;\n"
"const box=document.getElementById('c');\n"
"const nc=D.cpus.length,H=AX+nc*CH+D.lanes.length*LH,W=LW+D.width;\n"
/* tiles: browsers leave a canvas past 32767 (Firefox) or 65535 (Chromium)
 * pixels, or past 16.7 M pixels (Safari), blank */
"const TH=Math.max(8*LH,Math.min(8192,Math.floor(16e6/W)));\n"
"const yc=i=>AX+i*CH,yt=i=>AX+nc*CH+i*LH;\n"
"const P=new Map();function rows(s,y,h,col){let x=0;for(const m of s.matchAll(/([A-X.])([0-9a-z]+)/g)){"
"const n=parseInt(m[2],36);if(m[1]!=='.'){const c=col(m[1].charCodeAt(0)-65);"
"let p=P.get(c);if(!p){p=new Path2D();P.set(c,p);}p.rect(LW+x,y,n,h);}x+=n;}}\n"
"const A=[new Path2D(),new Path2D()],arrows=!location.hash.includes('noarrows');\n"
"if(arrows)D.lanes.forEach((l,i)=>{let x=0;const a=l.a.trim().split(/ +/);"
"for(let k=0;k+1<a.length;k+=2){x+=parseInt(a[k],36);const f=+a[k+1];"
"const y0=f>=0?yt(f)+RH/2:f<=-2?yc(-2-f)+RH/2:yt(i)-3,p=A[f<=-2?1:0];"
"p.moveTo(LW+x+.5,y0);p.lineTo(LW+x+.5,yt(i)+RH/2);}});\n"
"D.cpus.forEach((c,i)=>{rows(c.r,yc(i),RH,k=>CK[k]);"
"const n=c.khz.length,ks=c.khz.map((v,j)=>j).sort((a,b)=>c.khz[a]-c.khz[b]);"
"rows(c.f,yc(i)+RH+1,FH,k=>{const r=n>1?ks.indexOf(k)/(n-1):1;"
"return 'rgb('+(250-60*r|0)+','+(220-140*r|0)+','+(120-110*r|0)+')';});});\n"
"D.lanes.forEach((l,i)=>rows(l.r,yt(i),RH,k=>TK[k]));\n"
"const span=D.px*D.width;let st=1000;while(span/st>12)st*=(String(st)[0]==='2'?2.5:2);\n"
"function draw(g,top,h){g.setTransform(1,0,0,1,0,-top);\n"
"g.fillStyle='#fff';g.fillRect(0,top,W,h);\n"
"if(arrows){g.lineWidth=1;g.strokeStyle='rgba(60,60,140,.3)';g.stroke(A[0]);g.strokeStyle='rgba(200,0,0,.2)';g.stroke(A[1]);}\n"
"for(const [c,p] of P){g.fillStyle=c;g.fill(p);}\n"
"g.fillStyle='#fff';g.fillRect(0,top,LW,h);g.fillRect(0,0,W,AX);\n"
"g.fillStyle='#000';g.font='10px sans-serif';g.textBaseline='top';\n"
"D.cpus.forEach((c,i)=>g.fillText('CPU '+c.cpu,4,yc(i)));\n"
"const i0=Math.max(0,Math.floor((top-AX-nc*CH)/LH)-1),i1=Math.min(D.lanes.length,Math.ceil((top+h-AX-nc*CH)/LH)+1);\n"
"for(let i=i0;i<i1;i++){const l=D.lanes[i];g.fillText((l.comm+':'+l.tid).slice(0,28),4,yt(i));}\n"
"if(top<AX)for(let t=0;t<=span;t+=st){const x=LW+Math.round(t/D.px);g.fillRect(x,AX-5,1,5);"
"g.fillText(((D.since+t)/1e6).toFixed(st<1e6?3:0)+' ms',x+2,2);}}\n"
"for(let top=0;top<H;top+=TH){const cv=document.createElement('canvas'),h=Math.min(TH,H-top);"
"cv.width=W;cv.height=h;box.appendChild(cv);draw(cv.getContext('2d'),top,h);}\n"
"const tip=document.getElementById('tip'),KN=%s;\n"
"box.onmousemove=e=>{const r=box.getBoundingClientRect(),x=e.clientX-r.left-LW,"
"y=e.clientY-r.top,t=((D.since+x*D.px)/1e6).toFixed(3)+' ms';let s='';"
"if(y>=AX+nc*CH){const l=D.lanes[Math.floor((y-AX-nc*CH)/LH)];if(l)s=l.comm+':'+l.tid+"
"' (process '+l.tgid+(l.was?', was '+l.was:'')+'): '+l.ns.map((v,k)=>KN[k]+' '+(v/1e6).toFixed(3)+' ms')"
".join(', ')+'; '+l.waits+' waits, '+l.wakeups+' wakeups; '+l.inexact+' mixed pixels, times in pixels within '+(l.err/1e3).toFixed(3)+' us';}"
"else if(y>=AX){const c=D.cpus[Math.floor((y-AX)/CH)];if(c)s='CPU '+c.cpu+': busy '+"
"(c.busy/1e6).toFixed(3)+' ms, '+c.irq_wakeups+' wakeups from interrupts; '+c.inexact+' mixed pixels';}"
"tip.textContent=t+(s?'  '+s:'');tip.style.display=x>=0?'block':'none';};\n"
"document.body.setAttribute('data-drawn-ms',performance.now().toFixed(0));\n";

static void js_colours(const char *const *v, size_t n, char *out, size_t len)
{
	size_t o = 0;

	o += (size_t)snprintf(out + o, len - o, "[");
	for (size_t i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(out + o, len - o, "%s'%s'", i ? "," : "",
				      v[i]);
	if (o < len)
		snprintf(out + o, len - o, "]");
}

int tc_write_html(const struct timechart *tc, const struct tc_page *pg,
		  FILE *f)
{
	const struct tc_lane **order = malloc((tc->nlanes + 1) * sizeof(*order));
	int32_t *pos = malloc((tc->nlanes + 1) * sizeof(*pos));
	const char *cpuc[PIX_KINDS];
	char tk[256], ck[PIX_KINDS * 12 + 8];
	struct totals t = { 0 };
	size_t n = 0;

	if (!order || !pos) {
		free(order);
		free(pos);
		return -ENOMEM;
	}
	for (size_t i = 0; i < tc->nlanes; i++) {
		const struct tc_lane *l = &tc->lanes[i];

		pos[i] = -1;
		if (l->row.intervals &&
		    tc_task_shown(&tc->tasks[l->task], pg->tgid, pg->comm))
			order[n++] = l;
	}
	qsort(order, n, sizeof(*order), by_start);
	for (size_t i = 0; i < n; i++) {
		pos[order[i] - tc->lanes] = (int32_t)i;
		t.merged += order[i]->row.merged;
		t.inexact += order[i]->row.inexact;
		t.intervals += order[i]->row.intervals;
		if (pixrow_error(&order[i]->row) > t.err)
			t.err = pixrow_error(&order[i]->row);
	}
	t.shown = n;
	for (int c = 0; c < tc->ncpus; c++) {
		if ((pg->cpus && !pg->cpus[c]) || pg->task_filtered)
			continue;
		t.merged += tc->cpus[c].state.merged;
		t.inexact += tc->cpus[c].state.inexact;
		t.intervals += tc->cpus[c].state.intervals;
		if (pixrow_error(&tc->cpus[c].state) > t.err)
			t.err = pixrow_error(&tc->cpus[c].state);
	}
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
	      "abicap timechart: ", f);
	html_text(f, pg->title, strlen(pg->title));
	fputs("</title>\n", f);
	style(f);
	fputs("</head><body>\n", f);
	legend(f, tc, pg, &t);
	fputs("<div id=c></div><div id=tip></div>\n<script>\n", f);
	fprintf(f, "const D={\"t0\":%" PRIu64 ",\"since\":%" PRIu64 ",\"px\":%"
		PRIu64 ",\"width\":%u,\"notice\":", tc->sc.t0, pg->since_ns,
		tc->sc.px_ns, tc->sc.width);
	html_json_str(f, pg->notice ? pg->notice : "",
		      pg->notice ? strlen(pg->notice) : 0);
	fputs(",\n", f);
	cpu_data(f, tc, pg);
	fputs("\"lanes\":[", f);
	for (size_t i = 0; i < n; i++)
		lane_data(f, tc, order[i], i == 0, pos);
	fputs("]};\n", f);
	js_colours(tc_task_colour, 6, tk, sizeof(tk));
	for (unsigned int k = 0; k < PIX_KINDS; k++)
		cpuc[k] = tc_cpu_colour(k);
	js_colours(cpuc, PIX_KINDS, ck, sizeof(ck));
	fprintf(f, draw_js, TC_LABEL_W, TC_AXIS_H, TC_ROW_H, TC_FREQ_H,
		TC_CPU_H, TC_LANE_H, tk, ck,
		"['running','waiting','sleeping','blocked','other','unknown']");
	fputs("</script></body></html>\n", f);
	free(order);
	free(pos);
	return ferror(f) ? -EIO : 0;
}
