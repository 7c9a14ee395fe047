// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The run-queue latency heat map as one self-contained HTML page. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "view/heatmap.h"
#include "view/heatmap_html.h"
#include "view/html.h"

/* The number of bits of n: 1 for 1, 2 for 2-3, 3 for 4-7, ... */
static unsigned int bits(uint32_t n)
{
	return n ? 32 - (unsigned int)__builtin_clz(n) : 0;
}

/*
 * From light yellow (1) to dark red (max) in powers of two (log scale):
 * step bits(n) - 1 of bits(max) - 1.
 */
const char *hm_colour(uint32_t n, uint32_t max, char *buf)
{
	unsigned int s = bits(n) - 1, top = bits(max) - 1;

	if (!n) {
		snprintf(buf, 8, "#ffffff");
		return buf;
	}
	if (!top) {
		s = 1;
		top = 1;
	}
	snprintf(buf, 8, "#%02x%02x%02x", 255 - 79 * s / top,
		 236 - 236 * s / top, 160 - 160 * s / top);
	return buf;
}

static void bucket_label(FILE *f, unsigned int b)
{
	if (!b)
		fputs("\"< 1 us\"", f);
	else if (b == 1)
		fputs("\"1 us\"", f);
	else if (b == HM_ROWS - 1)
		fprintf(f, "\"\\u2265 %llu us\"", 1ull << (b - 1));
	else
		fprintf(f, "\"%llu-%llu us\"", 1ull << (b - 1), (1ull << b) - 1);
}

uint32_t hm_columns(uint32_t width, uint32_t cell_w)
{
	uint32_t w = width > HM_LABEL_W + HM_RIGHT_W ?
		     width - HM_LABEL_W - HM_RIGHT_W : 0;

	return cell_w && w / cell_w >= 2 ? w / cell_w : 0;
}

/*
 * The page's script: the cells drawn from D, the time axis (its last
 * label kept inside the canvas), the colour scale with a tick per power
 * of two, a tooltip for the cell under the cursor, and, on a click, the
 * command that lists the waits of its column. "#at=COL,ROW" in the URL
 * points at that cell once drawn (as a test's browser does).
 */
static const char hm_script[] =
"const cv=document.getElementById('c'),g=cv.getContext('2d'),CH=D.cell_h,W=D.cell_w;\n"
"const GW=D.cols*W,GH=(D.top+1)*CH;\n"
"cv.width=D.width;cv.height=AX+GH+SH;\n"
"g.fillStyle='#fff';g.fillRect(0,0,cv.width,cv.height);\n"
"const B=n=>32-Math.clz32(n),T=Math.max(B(D.max)-1,1);\n"
"function col(n){const s=D.max>1?B(n)-1:1;"
"const h=(a,m)=>(a-Math.trunc(m*s/T)).toString(16).padStart(2,'0');"
"return '#'+h(255,79)+h(236,236)+h(160,160);}\n"
"D.cells.forEach((c,x)=>c.forEach((n,b)=>{if(!n)return;g.fillStyle=col(n);"
"g.fillRect(LW+x*W,AX+(D.top-b)*CH,W,CH);}));\n"
"g.fillStyle='#000';g.font='10px sans-serif';g.textBaseline='middle';\n"
"D.labels.forEach((s,b)=>g.fillText(s,4,AX+(D.top-b)*CH+CH/2));\n"
"g.textBaseline='top';\n"
"function label(s,x,y){const w=g.measureText(s).width;"
"g.fillText(s,Math.max(0,Math.min(x,cv.width-w-2)),y);}\n"
"const span=D.col_ns*D.cols;let st=1000;while(span/st>10)st*=(String(st)[0]==='2'?2.5:2);\n"
"for(let t=0;t<=span;t+=st){const x=LW+Math.round(t/D.col_ns*W);g.fillRect(x,AX-5,1,5);"
"label(((D.since+t)/1e6).toFixed(st<1e6?3:0)+' ms',x+2,2);}\n"
"const sy=AX+GH+8,n2=B(D.max),bw=Math.max(8,Math.min(60,Math.floor(GW/Math.max(n2,1))));\n"
"g.fillText('waits in a cell:',4,sy+2);\n"
"for(let s=0;s<n2;s++){const v=2**s;g.fillStyle=col(v);g.fillRect(LW+s*bw,sy,bw,12);"
"g.fillStyle='#000';g.fillRect(LW+s*bw,sy+12,1,4);"
"if(s%Math.ceil(24/bw)===0)label(String(v),LW+s*bw,sy+17);}\n"
"g.strokeStyle='#888';g.strokeRect(LW+0.5,sy+0.5,n2*bw,12);"
"label('to '+D.max+' (the most in a cell)',LW+n2*bw+6,sy+1);\n"
"const tip=document.getElementById('tip'),cmd=document.getElementById('cmd');\n"
"const ms=ns=>(ns/1e6).toFixed(3)+' ms';\n"
"const q=s=>/^[A-Za-z0-9_\\/.,:=+-]+$/.test(s)?s:\"'\"+s.replace(/'/g,\"'\\\\''\")+\"'\";\n"
"function cell(px,py){const x=Math.floor((px-LW)/W),r=Math.floor((py-AX)/CH);"
"return x>=0&&x<D.cols&&r>=0&&r<=D.top?[x,D.top-r]:null;}\n"
"function text(x,b){const a=D.since+x*D.col_ns,n=D.cells[x][b];"
"return ms(a)+' to '+ms(a+D.col_ns)+' after the first record: '+n+' wait'+(n===1?'':'s')+"
"' of '+D.labels[b]+(n?'; most: '+(D.tops[x][b]||[]).map(t=>t[0]+' ('+t[1]+')').join(', ')+"
"' (click: the command that lists the waits ending then)':'');}\n"
"function show(x,b,px,py){tip.textContent=text(x,b);tip.style.display='block';"
"tip.style.left=Math.min(px+12,Math.max(0,D.width-tip.offsetWidth))+'px';tip.style.top=(cv.offsetTop+py+14)+'px';"
"document.body.setAttribute('data-tip',tip.textContent);}\n"
"function pick(x){const a=D.since+x*D.col_ns;cmd.textContent='abicap report '+q(D.file)+"
"' --since '+a+'ns --until '+(a+D.col_ns)+'ns --slowest 20';cmd.style.display='block';"
"document.body.setAttribute('data-cmd',cmd.textContent);"
"const r=document.createRange();r.selectNodeContents(cmd);const s=getSelection();s.removeAllRanges();s.addRange(r);}\n"
"cv.addEventListener('mousemove',e=>{const c=cell(e.offsetX,e.offsetY);"
"if(c)show(c[0],c[1],e.offsetX,e.offsetY);else tip.style.display='none';});\n"
"cv.addEventListener('mouseleave',()=>{tip.style.display='none';});\n"
"cv.addEventListener('click',e=>{const c=cell(e.offsetX,e.offsetY);if(c)pick(c[0]);});\n"
"const at=/#at=(\\d+),(\\d+)/.exec(location.hash);\n"
"if(at){const x=+at[1],b=+at[2];if(x<D.cols&&b<=D.top){"
"show(x,b,LW+x*W+W/2,AX+(D.top-b)*CH+CH/2);pick(x);}}\n"
"document.body.setAttribute('data-canvas-w',cv.width);\n"
"document.body.setAttribute('data-drawn-ms',performance.now().toFixed(0));\n";

static void write_legend(const struct hm_page *p, FILE *f, uint32_t max)
{
	char c[8];

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
	      "abicap heat map: ", f);
	html_text(f, p->title, strlen(p->title));
	fprintf(f, "</title>\n<style>body{margin:0;font:12px sans-serif;"
		"background:#fff;color:#000}#lg{box-sizing:border-box;height:%dpx;"
		"width:%upx;padding:4px 8px;overflow:auto}canvas{display:block}"
		"#tip{position:absolute;display:none;max-width:480px;padding:3px "
		"6px;background:#ffffe8;border:1px solid #888;pointer-events:none}"
		"#cmd{display:none;margin:4px 8px;padding:4px;font:12px monospace;"
		"background:#f4f4f4;border:1px solid #ccc;user-select:all}"
		"</style></head><body>\n<div id=lg>", HM_LEGEND_H, p->width);
	html_notice(f, p->notice);
	fputs("<b>abicap run-queue latency heat map</b> of ", f);
	html_text(f, p->title, strlen(p->title));
	fputs(" for ", f);
	html_text(f, p->what, strlen(p->what));
	fprintf(f, ": %" PRIu64 " waits (after a wakeup or a preemption, until "
		"switched in; as abicap report counts them), each in the column "
		"of its end and the row of its latency (log2 buckets of "
		"microseconds, the report's histogram). A column is %.3f ms; a "
		"cell's colour is its count on a log scale (a step per power of "
		"two, the scale below the cells), from ",
		p->waits, (double)p->col_ns / 1e6);
	fprintf(f, "<span style=\"background:%s\">&nbsp;1&nbsp;</span> to ",
		hm_colour(1, max, c));
	fprintf(f, "<span style=\"background:%s;color:#fff\">&nbsp;%u&nbsp;"
		"</span> waits; white: none. Point at a cell for its waits; "
		"click it for the command that lists them.</div>\n",
		hm_colour(max, max, c), max);
}

/* Column col's top tasks: {"ROW":[["comm:tid",waits],...],...}. */
static void write_tops(const struct hm_page *p, FILE *f, uint32_t col,
		       unsigned int top)
{
	bool first = true;

	fputs(col ? ",{" : "{", f);
	for (unsigned int b = 0; p->top && b <= top; b++) {
		const struct hm_top *c = &p->top[(size_t)col * HM_ROWS + b];

		if (!c->tid[0])
			continue;
		fprintf(f, "%s\"%u\":[", first ? "" : ",", b);
		first = false;
		for (int i = 0; i < HM_TOP && c->tid[i]; i++) {
			const struct task *leader = p->procs ?
				leaders_of(p->procs, c->tid[i]) : NULL;
			char name[64];
			int n = snprintf(name, sizeof(name), "%s:%d",
					 p->h ? hm_comm(p->h, c->tid[i]) : "?",
					 (int)c->tid[i]);

			if (leader) /* "name:tgid", as report --by process */
				leaders_name(p->procs, leader, name, sizeof(name));
			n = (int)strlen(name);

			fputs(i ? ",[" : "[", f);
			html_json_str(f, name, (size_t)n < sizeof(name) ?
				      (size_t)n : sizeof(name) - 1);
			fprintf(f, ",%u]", c->n[i]);
		}
		fputc(']', f);
	}
	fputc('}', f);
}

int hm_write_html(const struct hm_page *p, FILE *f)
{
	unsigned int top = 0;
	uint32_t max = 0, ch;

	for (uint32_t col = 0; col < p->cols; col++)
		for (unsigned int b = 0; b < HM_ROWS; b++) {
			uint32_t n = p->cells[(size_t)col * HM_ROWS + b];

			if (n && b > top)
				top = b;
			if (n > max)
				max = n;
		}
	/* the rows fill the page's height, within bounds */
	ch = p->height > HM_LEGEND_H + HM_AXIS_H + HM_SCALE_H ?
	     (p->height - HM_LEGEND_H - HM_AXIS_H - HM_SCALE_H) / (top + 1) : 0;
	ch = ch < HM_CELL_H ? HM_CELL_H : ch > HM_CELL_H_MAX ? HM_CELL_H_MAX : ch;
	write_legend(p, f, max);
	fputs("<canvas id=c></canvas><div id=tip></div><div id=cmd></div>\n"
	      "<script>\n", f);
	fprintf(f, "const D={\"since\":%" PRIu64 ",\"col_ns\":%" PRIu64
		",\"cols\":%u,\"cell_w\":%u,\"cell_h\":%u,\"width\":%u,"
		"\"top\":%u,\"max\":%u,\"waits\":%" PRIu64 ",\"file\":",
		p->since_ns, p->col_ns, p->cols, p->cell_w, ch, p->width, top,
		max, p->waits);
	html_json_str(f, p->title, strlen(p->title));
	fputs(",\"notice\":", f);
	html_json_str(f, p->notice ? p->notice : "",
		      p->notice ? strlen(p->notice) : 0);
	fputs(",\"labels\":[", f);
	for (unsigned int b = 0; b <= top; b++) {
		if (b)
			fputc(',', f);
		bucket_label(f, b);
	}
	fputs("],\"tops\":[", f);
	for (uint32_t col = 0; col < p->cols; col++)
		write_tops(p, f, col, top);
	fprintf(f, "],\"tasks_partial\":%s,\"cells\":[",
		p->tasks_partial ? "true" : "false");
	for (uint32_t col = 0; col < p->cols; col++) {
		fputs(col ? ",[" : "[", f);
		for (unsigned int b = 0; b <= top; b++)
			fprintf(f, "%s%u", b ? "," : "",
				p->cells[(size_t)col * HM_ROWS + b]);
		fputc(']', f);
	}
	fprintf(f, "]};\nconst LW=%d,AX=%d,SH=%d;\n", HM_LABEL_W, HM_AXIS_H,
		HM_SCALE_H);
	fputs(hm_script, f);
	fputs("</script></body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
