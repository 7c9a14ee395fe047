// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The timechart as one self-contained HTML page: legend, data, a canvas script. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "view/html.h"
#include "view/timechart_html.h"

/*
 * Chosen so that no mixture of two (1-pixel alternation, seen as their
 * average) reads as a third, arrows and white included: tests/unit_palette.c.
 * (Lavender "other" and grey "unknown" were what blue and red, or green
 * and blue, blended into.)
 */
const char *const tc_task_colour[6] = {
	[SPAN_RUNNING] = "#1f5fbf", [SPAN_RUNQUEUE] = "#e0201c",
	[SPAN_SLEEP] = "#bfe3bf", [SPAN_BLOCKED] = "#f09a10",
	[SPAN_OFF_OTHER] = "#663300", [SPAN_UNKNOWN] = "#202020",
};

/* Idle states shade from light (shallow) to dark (deep) blue-grey. */
static const char *const idle_colour[TC_IDLE_STATES] = {
	"#dcecfc", "#b8d4f0", "#94bce4", "#70a4d8", "#5c8cc0", "#4874a8",
	"#345c90", "#204478", "#1c3c6c", "#183460", "#142c54", "#102448",
	"#0c1c3c", "#081430", "#040c24", "#000418", "#00000c", "#000008",
	"#000004", "#000002",
};

/* Wakeup arrows, opaque: from a task (violet), from interrupt context (navy). */
const char *const tc_arrow_colour[2] = { "#6600ff", "#000066" };

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
	"running", "waiting for a CPU (run queue)", "sleeping (S, or I: an idle kernel thread)",
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

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
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
	swatch(f, tc_arrow_colour[0], "wakeup (from the waker's lane)");
	swatch(f, tc_arrow_colour[1], "wakeup from an interrupt (from the CPU's lane)");
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
	fputs("<br><b>Processes:</b> <a href=# id=grp>group threads by "
	      "process</a> (a process row shows the state other than sleeping "
	      "its threads spent most time in, sleeping where all slept; a "
	      "click on its name unfolds its threads).", f);
	fputs("<br><b>Zoom:</b> the wheel zooms at the cursor, a drag across "
	      "the chart zooms to what it spans, shift+wheel or the arrow keys "
	      "pan, a double-click or 0 shows it all again. ", f);
	if (tc->zoom)
		fprintf(f, "Zoomed views are drawn from a layer of %.3f us "
			"pixels, each screen pixel in the state that holds most "
			"of it.", (double)tc->zsc.px_ns / 1e3);
	else
		fprintf(f, "Zoomed views magnify this scale's pixels: %s.",
			!tc->zoom_dropped ?
			"they are as fine as the layer a zoom draws from" :
			"a finer layer would take more than the page's 16 MB "
			"budget for it (draw a shorter window with --since and "
			"--until)");
	fputs("</div>\n", f);
}

/* CPU lane cp's runners: "I N I N ...", I the task (base 36, "-" none), N pixels. */
static void who_runs(FILE *f, const struct timechart *tc,
		     const struct tc_cpu *cp, bool *named)
{
	uint32_t x = 0;

	fputs(",\"w\":\"", f);
	while (cp->who && x < tc->sc.width) {
		uint32_t w = cp->who[x], n = 0;

		while (x + n < tc->sc.width && cp->who[x + n] == w)
			n++;
		if (w) {
			b36(f, w - 1);
			named[w - 1] = true;
		} else {
			fputc('-', f);
		}
		fputc(' ', f);
		b36(f, n);
		fputc(' ', f);
		x += n;
	}
	fputc('"', f);
}

/* The runners' names: {"I":"comm:tid",...} (I as in who_runs). */
static void who_names(FILE *f, const struct timechart *tc, const bool *named)
{
	bool first = true;

	fputs("\"who\":{", f);
	for (size_t i = 0; named && i < tc->ntasks; i++) {
		char name[64];
		int n;

		if (!named[i])
			continue;
		fprintf(f, "%s\"", first ? "" : ",");
		b36(f, (uint64_t)i);
		fputs("\":", f);
		n = snprintf(name, sizeof(name), "%.16s:%d", tc->tasks[i].comm,
			     (int)tc->tasks[i].id.tid);
		html_json_str(f, name, (size_t)n < sizeof(name) ? (size_t)n :
				       sizeof(name) - 1);
		first = false;
	}
	fputs("},\n", f);
}

static void cpu_data(FILE *f, const struct timechart *tc,
		     const struct tc_page *pg)
{
	bool first = true, *named = calloc(tc->ntasks ? tc->ntasks : 1,
					    sizeof(*named));

	fputs("\"cpus\":[", f);
	for (int c = 0; c < tc->ncpus; c++) {
		const struct tc_cpu *cp = &tc->cpus[c];

		if ((pg->cpus && !pg->cpus[c]) || pg->task_filtered)
			continue;
		fprintf(f, "%s\n{\"cpu\":%d,\"r\":", first ? "" : ",", c);
		first = false;
		runs(f, &cp->state);
		if (tc->zoom) {
			fputs(",\"z\":", f);
			runs(f, &cp->zstate);
		}
		fputs(",\"f\":", f);
		runs(f, &cp->freq);
		fputs(",\"khz\":[", f);
		for (int k = 0; k < cp->nkhz; k++)
			fprintf(f, "%s%u", k ? "," : "", cp->khz[k]);
		fprintf(f, "],\"busy\":%" PRIu64 ",\"err\":%" PRIu64
			",\"inexact\":%" PRIu64 ",\"irq_wakeups\":%" PRIu64,
			cp->state.total[TC_CPU_BUSY], pixrow_error(&cp->state),
			cp->state.inexact, cp->irq_wakeups);
		if (named)
			who_runs(f, tc, cp, named);
		fputc('}', f);
	}
	fputs("],\n", f);
	who_names(f, tc, named);
	free(named);
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
	if (tc->zoom) {
		fputs(",\"z\":", f);
		runs(f, &l->zrow);
	}
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

uint32_t tc_axis_px(uint32_t width)
{
	uint32_t axis = width > TC_LABEL_W + TC_RIGHT_W ?
			width - TC_LABEL_W - TC_RIGHT_W : 0;

	return axis >= TC_AXIS_MIN ? axis : 0;
}

/*
 * The script that draws the canvas from D (no network, no library). The
 * canvas is SB pixels narrower than the page's width: room for the window's
 * vertical scrollbar, so that a page as wide as its window does not scroll
 * sideways (the last time label, moved left, still fits).
 */
static const char draw_js[] =
"const LW=%d,RW=%d,AX=%d,RH=%d,FH=%d,CH=%d,LH=%d,SB=16;\n"
"const TK=%s,CK=%s,AC=['%s','%s'];\n"
"const box=document.getElementById('c');\n"
"const nc=D.cpus.length,W=LW+D.width+RW-SB,SPAN=D.px*D.width;\n"
"const G=new Map();D.lanes.forEach((l,i)=>{if(!G.has(l.tgid))G.set(l.tgid,[]);G.get(l.tgid).push(i);});\n"
"let grouped=/[#&]group/.test(location.hash);const open=new Set();\n"
"for(const m of location.hash.matchAll(/[#&]expand=(\\d+)/g))open.add(+m[1]);\n"
"let S=[],LY=[],H=0;\n"
"function layout(){S=[];LY=new Array(D.lanes.length);const done=new Set();\n"
"D.lanes.forEach((l,i)=>{const g=G.get(l.tgid);if(!grouped||g.length<2){LY[i]=S.length;S.push({i});return;}\n"
"if(done.has(l.tgid))return;done.add(l.tgid);const r=S.length;S.push({p:l.tgid});\n"
"for(const j of g){LY[j]=open.has(l.tgid)?S.length:r;if(open.has(l.tgid))S.push({i:j,sub:1});}});\n"
"H=AX+nc*CH+S.length*LH;document.body.setAttribute('data-rows',S.map(r=>r.p!==undefined?'p'+r.p:'l'+D.lanes[r.i].tid).join(','));}\n"
"layout();\n"
"const TH=Math.max(8*LH,Math.min(8192,Math.floor(16e6/W)));\n"
"const yc=i=>AX+i*CH,yr=r=>AX+nc*CH+r*LH,yt=i=>yr(LY[i]);\n"
"let V0=0,V1=SPAN;\n"
"const zoomed=()=>V0>0||V1<SPAN,fw=()=>(V1-V0)/D.width,tns=x=>V0+x*fw();\n"
"function runsOf(o,k){const c='_'+k;if(!o[c]){const e=[],kd=[];let x=0;\n"
"for(const m of (o[k]||'').matchAll(/([A-X.])([0-9a-z]+)/g)){x+=parseInt(m[2],36);e.push(x);kd.push(m[1]==='.'?-1:m[1].charCodeAt(0)-65);}\n"
"o[c]={e:Float64Array.from(e),k:Int8Array.from(kd)};}return o[c];}\n"
"function first(R,v){let lo=0,hi=R.e.length;while(lo<hi){const m=(lo+hi)>>1;if(R.e[m]<=v)lo=m+1;else hi=m;}return lo;}\n"
"function lay(o){return zoomed()&&D.zpx&&o.z!==undefined?['z',D.zpx]:['r',D.px];}\n"
"let P;\n"
"function rect(x,n,y,h,c){let p=P.get(c);if(!p){p=new Path2D();P.set(c,p);}p.rect(LW+x,y,n,h);}\n"
"function rows(o,k,unit,y,h,col){const R=runsOf(o,k),f=fw(),acc=new Float64Array(24);let pp=-1;\n"
"const flush=()=>{if(pp<0)return;let b=0;for(let j=1;j<24;j++)if(acc[j]>acc[b])b=j;if(acc[b]>0)rect(pp,1,y,h,col(b));acc.fill(0);pp=-1;};\n"
"const put=(p,kd,v)=>{if(p!==pp){flush();pp=p;}acc[kd]+=v;};\n"
"for(let i=first(R,V0/unit);i<R.e.length;i++){const s=(i?R.e[i-1]:0)*unit;if(s>=V1)break;if(R.k[i]<0)continue;\n"
"const kd=R.k[i],sx=(Math.max(s,V0)-V0)/f,ex=(Math.min(R.e[i]*unit,V1)-V0)/f,ps=Math.floor(sx),pe=Math.floor(ex);\n"
"if(ps===pe){put(ps,kd,ex-sx);continue;}put(ps,kd,ps+1-sx);\n"
"if(pe>ps+1){flush();rect(ps+1,pe-ps-1,y,h,col(kd));}if(ex>pe)put(pe,kd,ex-pe);}flush();}\n"
"function prow(ids,y){const w=D.width,f=fw(),M=new Float64Array(w*6);\n"
"for(const i of ids){const o=D.lanes[i],[k,unit]=lay(o),R=runsOf(o,k);\n"
"for(let j=first(R,V0/unit);j<R.e.length;j++){const s=(j?R.e[j-1]:0)*unit;if(s>=V1)break;if(R.k[j]<0)continue;\n"
"const sx=(Math.max(s,V0)-V0)/f,ex=(Math.min(R.e[j]*unit,V1)-V0)/f;\n"
"for(let p=Math.floor(sx);p<ex&&p<w;p++)M[p*6+R.k[j]]+=Math.min(ex,p+1)-Math.max(sx,p);}}\n"
"for(let p=0;p<w;p++){let b=-1;for(let q=0;q<6;q++)if(q!==2&&M[p*6+q]>0&&(b<0||M[p*6+q]>M[p*6+b]))b=q;\n"
"if(b<0&&M[p*6+2]>0)b=2;if(b>=0)rect(p,1,y,RH,TK[b]);}}\n"
"const arrows=!location.hash.includes('noarrows');let A;\n"
"function build(){P=new Map();A=[new Path2D(),new Path2D()];const f=fw();\n"
"if(arrows)D.lanes.forEach((l,i)=>{let x=0;const a=l.a.trim().split(/ +/);\n"
"for(let k=0;k+1<a.length;k+=2){x+=parseInt(a[k],36);const X=Math.floor(((x+.5)*D.px-V0)/f);if(X<0||X>=D.width)continue;\n"
"const t=+a[k+1],y0=t>=0?yt(t)+RH/2:t<=-2?yc(-2-t)+RH/2:yt(i)-3,p=A[t<=-2?1:0];\n"
"p.moveTo(LW+X+.5,y0);p.lineTo(LW+X+.5,yt(i)+RH/2);}});\n"
"D.cpus.forEach((c,i)=>{const [k,u]=lay(c);rows(c,k,u,yc(i),RH,j=>CK[j]);\n"
"const n=c.khz.length,ks=c.khz.map((v,j)=>j).sort((a,b)=>c.khz[a]-c.khz[b]);\n"
"rows(c,'f',D.px,yc(i)+RH+1,FH,j=>{const r=n>1?ks.indexOf(j)/(n-1):1;\n"
"return 'rgb('+(250-60*r|0)+','+(220-140*r|0)+','+(120-110*r|0)+')';});});\n"
"S.forEach((r,n)=>{if(r.p!==undefined){prow(G.get(r.p),yr(n));return;}const l=D.lanes[r.i],[k,u]=lay(l);rows(l,k,u,yr(n),RH,j=>TK[j]);});}\n"
"function label(r){if(r.p===undefined){const l=D.lanes[r.i];return (r.sub?'   ':'')+l.comm+':'+l.tid;}\n"
"const g=G.get(r.p),l=D.lanes[g[0]];return (open.has(r.p)?'\\u25be ':'\\u25b8 ')+l.comm+':'+r.p+' ('+g.length+' threads)';}\n"
"function draw(g,top,h){g.setTransform(1,0,0,1,0,-top);\n"
"g.fillStyle='#fff';g.fillRect(0,top,W,h);\n"
"if(arrows){g.lineWidth=1;g.strokeStyle=AC[0];g.stroke(A[0]);g.strokeStyle=AC[1];g.stroke(A[1]);}\n"
"for(const [c,p] of P){g.fillStyle=c;g.fill(p);}\n"
"g.fillStyle='#fff';g.fillRect(0,top,LW,h);g.fillRect(0,0,W,AX);g.fillRect(LW+D.width,top,RW-SB,h);\n"
"g.fillStyle='#000';g.font='10px sans-serif';g.textBaseline='top';\n"
"D.cpus.forEach((c,i)=>g.fillText('CPU '+c.cpu,4,yc(i)));\n"
"const i0=Math.max(0,Math.floor((top-AX-nc*CH)/LH)-1),i1=Math.min(S.length,Math.ceil((top+h-AX-nc*CH)/LH)+1);\n"
"for(let n=i0;n<i1;n++)g.fillText(label(S[n]).slice(0,30),4,yr(n));\n"
"if(top<AX){const s=V1-V0,z=zoomed();let st=z?1:1000;while(s/st>12)st*=(String(st)[0]==='2'?2.5:2);\n"
"const dg=z?Math.max(0,Math.min(6,6-Math.floor(Math.log10(st)))):(st<1e6?3:0);\n"
"for(let t=Math.ceil((D.since+V0)/st)*st-D.since;t<=V1;t+=st){const x=LW+Math.round((t-V0)/fw());g.fillRect(x,AX-5,1,5);\n"
"const q=((D.since+t)/1e6).toFixed(dg)+' ms';g.fillText(q,Math.min(x+2,W-g.measureText(q).width-2),2);}}}\n"
"let tiles=[];function retile(){box.textContent='';tiles=[];for(let top=0;top<H;top+=TH){const cv=document.createElement('canvas'),h=Math.min(TH,H-top);\n"
"cv.width=W;cv.height=h;box.appendChild(cv);tiles.push([cv,top,h]);}}retile();\n"
"function regroup(){layout();retile();render();}\n"
"function render(){build();for(const [cv,top,h] of tiles)draw(cv.getContext('2d'),top,h);\n"
"document.body.setAttribute('data-view',V0+','+V1);}\n"
"function view(a,b){const s=Math.min(SPAN,Math.max(D.width,b-a));a=Math.max(0,Math.min(a,SPAN-s));V0=a;V1=a+s;render();}\n"
"const zm=/[#&]zoom=([0-9.]+),([0-9.]+)/.exec(location.hash);\n"
"if(zm){const a=+zm[1]*1e6-D.since,b=+zm[2]*1e6-D.since;V0=Math.max(0,a);V1=Math.min(SPAN,Math.max(V0+D.width,b));}\n"
"render();\n"
"const tip=document.getElementById('tip'),KN=%s;\n"
"function at(o,ns){const [k,u]=lay(o),R=runsOf(o,k),i=first(R,ns/u);if(i>=R.e.length||R.k[i]<0)return null;\n"
"return [R.k[i],(i?R.e[i-1]:0)*u,R.e[i]*u];}\n"
"const fms=ns=>((D.since+ns)/1e6).toFixed(zoomed()?6:3);\n"
"const CN=['busy','unknown','records lost','idle (no state seen)'].concat(Array.from({length:CK.length-4},(v,i)=>'idle in state '+i));\n"
"function here(o,x,names){const a=at(o,tns(x+.5));return a?names[a[0]]+' here, '+fms(a[1])+' to '+\n"
"fms(a[2])+' ms ('+((a[2]-a[1])/1e6).toFixed(zoomed()?6:3)+' ms in pixels); ':'not seen here; ';}\n"
"function ran(c,x){if(!c.w)return '';const a=c.w.trim().split(/ +/),b=Math.floor(tns(x+.5)/D.px);let p=0;\n"
"for(let k=0;k+1<a.length;k+=2){p+=parseInt(a[k+1],36);if(b<p)return a[k]==='-'?'':\n"
"'ran there the longest in this pixel: '+D.who[a[k]]+'; ';}return '';}\n"
"function proc(p,x){const g=G.get(p),c=[0,0,0,0,0,0];let u=0;for(const i of g){const a=at(D.lanes[i],tns(x+.5));if(a)c[a[0]]++;else u++;}\n"
"return 'process '+D.lanes[g[0]].comm+':'+p+', '+g.length+' threads here: '+c.map((v,k)=>v?v+' '+KN[k]:'').filter(v=>v).join(', ')+(u?(c.some(v=>v)?', ':'')+u+' not seen':'')+\n"
"' (the row: the state other than sleeping its threads spent most time in; click its name to '+(open.has(p)?'fold':'unfold')+' them)';}\n"
"function hover(x,y){const t=fms(tns(x))+' ms';let s='';\n"
"if(y>=AX+nc*CH){const r=S[Math.floor((y-AX-nc*CH)/LH)],l=r&&r.p===undefined?D.lanes[r.i]:null;if(r&&!l)s=proc(r.p,x);if(l)s=l.comm+':'+l.tid+' '+here(l,x,KN)+'in all'+\n"
"' (process '+l.tgid+(l.was?', was '+l.was:'')+'): '+l.ns.map((v,k)=>KN[k]+' '+(v/1e6).toFixed(3)+' ms')\n"
".join(', ')+'; '+l.waits+' waits, '+l.wakeups+' wakeups; '+l.inexact+' mixed pixels, times in pixels within '+(l.err/1e3).toFixed(3)+' us';}\n"
"else if(y>=AX){const c=D.cpus[Math.floor((y-AX)/CH)];if(c)s='CPU '+c.cpu+' '+here(c,x,CN)+ran(c,x)+'in all: busy '+\n"
"(c.busy/1e6).toFixed(3)+' ms, '+c.irq_wakeups+' wakeups from interrupts; '+c.inexact+' mixed pixels';}\n"
"tip.textContent=t+(s?'  '+s:'');tip.style.display=x>=0?'block':'none';\n"
"document.body.setAttribute('data-tip',tip.textContent);}\n"
"const pos=e=>{const r=box.getBoundingClientRect();return [Math.floor(e.clientX-r.left-LW),e.clientY-r.top];};\n"
"box.onmousemove=e=>{const [x,y]=pos(e);hover(x,y);};\n"
"box.onwheel=e=>{const [x]=pos(e);if(x<0||x>=D.width)return;e.preventDefault();const s=V1-V0;\n"
"if(e.shiftKey||Math.abs(e.deltaX)>Math.abs(e.deltaY)){const d=(e.deltaX||e.deltaY)>0?s/8:-s/8;view(V0+d,V1+d);return;}\n"
"const n=s*(e.deltaY<0?0.8:1.25),t=tns(x);view(t-(t-V0)*n/s,t-(t-V0)*n/s+n);};\n"
"let drag=null;box.onmousedown=e=>{const [x]=pos(e);if(x>=0&&x<D.width){drag=x;e.preventDefault();}};\n"
"window.onmouseup=e=>{if(drag===null)return;const x=Math.max(0,Math.min(D.width,pos(e)[0]));\n"
"if(Math.abs(x-drag)>=3)view(tns(Math.min(x,drag)),tns(Math.max(x,drag)));drag=null;};\n"
"box.ondblclick=e=>{if(pos(e)[0]>=0)view(0,SPAN);};\n"
"box.onclick=e=>{const [x,y]=pos(e);if(x>=0||y<AX+nc*CH)return;const r=S[Math.floor((y-AX-nc*CH)/LH)];\n"
"if(r&&r.p!==undefined){if(open.has(r.p))open.delete(r.p);else open.add(r.p);regroup();}};\n"
"const gb=document.getElementById('grp');if(gb)gb.onclick=e=>{e.preventDefault();grouped=!grouped;regroup();};\n"
"window.onkeydown=e=>{const s=V1-V0;if(e.key==='0')view(0,SPAN);else if(e.key==='+')view(V0+s/10,V1-s/10);\n"
"else if(e.key==='-')view(V0-s/8,V1+s/8);else if(e.key==='ArrowLeft')view(V0-s/8,V1-s/8);else if(e.key==='ArrowRight')view(V0+s/8,V1+s/8);};\n"
"const ev=(t,x,y,o)=>{const r=box.getBoundingClientRect();return new (t==='wheel'?WheelEvent:MouseEvent)(t,Object.assign({clientX:r.left+LW+x,clientY:r.top+y,bubbles:true,cancelable:true},o||{}));};\n"
"for(const m of location.hash.matchAll(/[#&](wheel|drag|click)=(-?\\d+),(-?\\d+),?(-?\\d+)?/g)){const a=+m[2],b=+m[3],c=+m[4];\n"
"if(m[1]==='wheel')box.dispatchEvent(ev('wheel',a,AX+2,{deltaY:b}));\n"
"else if(m[1]==='drag'){box.dispatchEvent(ev('mousedown',a,AX+2));window.dispatchEvent(ev('mouseup',b,AX+2));}\n"
"else box.dispatchEvent(ev('click',a,b));}\n"
"const hv=/[#&]hover=(-?\\d+),(\\d+)/.exec(location.hash);if(hv)hover(+hv[1],+hv[2]);\n"
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
		PRIu64 ",\"width\":%u,\"zpx\":%" PRIu64 ",\"notice\":",
		tc->sc.t0, pg->since_ns, tc->sc.px_ns, tc->sc.width,
		tc->zoom ? tc->zsc.px_ns : 0);
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
	fprintf(f, draw_js, TC_LABEL_W, TC_RIGHT_W, TC_AXIS_H, TC_ROW_H, TC_FREQ_H,
		TC_CPU_H, TC_LANE_H, tk, ck, tc_arrow_colour[0],
		tc_arrow_colour[1],
		"['running','waiting','sleeping','blocked','other','unknown']");
	fputs("</script></body></html>\n", f);
	free(order);
	free(pos);
	return ferror(f) ? -EIO : 0;
}
