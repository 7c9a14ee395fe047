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

int hm_write_html(const struct hm_page *p, FILE *f)
{
	unsigned int top = 0;
	uint32_t max = 0;
	char c[8];

	for (uint32_t col = 0; col < p->cols; col++)
		for (unsigned int b = 0; b < HM_ROWS; b++) {
			uint32_t n = p->cells[(size_t)col * HM_ROWS + b];

			if (n && b > top)
				top = b;
			if (n > max)
				max = n;
		}
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
	      "abicap heat map: ", f);
	html_text(f, p->title, strlen(p->title));
	fprintf(f, "</title>\n<style>body{margin:0;font:12px sans-serif;"
		"background:#fff;color:#000}#lg{box-sizing:border-box;height:%dpx;"
		"padding:4px 8px;overflow:auto}canvas{display:block}</style>"
		"</head><body>\n<div id=lg>", HM_LEGEND_H);
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
		"two), from ",
		p->waits, (double)p->col_ns / 1e6);
	fprintf(f, "<span style=\"background:%s\">&nbsp;1&nbsp;</span> to ",
		hm_colour(1, max, c));
	fprintf(f, "<span style=\"background:%s;color:#fff\">&nbsp;%u&nbsp;"
		"</span> waits; white: none.</div>\n", hm_colour(max, max, c),
		max);
	fputs("<canvas id=c></canvas>\n<script>\n", f);
	fprintf(f, "const D={\"since\":%" PRIu64 ",\"col_ns\":%" PRIu64
		",\"cols\":%u,\"cell_w\":%u,\"top\":%u,\"max\":%u,\"waits\":%"
		PRIu64 ",\"notice\":", p->since_ns, p->col_ns, p->cols,
		p->cell_w, top, max, p->waits);
	html_json_str(f, p->notice ? p->notice : "",
		      p->notice ? strlen(p->notice) : 0);
	fputs(",\"labels\":[", f);
	for (unsigned int b = 0; b <= top; b++) {
		if (b)
			fputc(',', f);
		bucket_label(f, b);
	}
	fputs("],\"cells\":[", f);
	for (uint32_t col = 0; col < p->cols; col++) {
		fputs(col ? ",[" : "[", f);
		for (unsigned int b = 0; b <= top; b++)
			fprintf(f, "%s%u", b ? "," : "",
				p->cells[(size_t)col * HM_ROWS + b]);
		fputc(']', f);
	}
	fprintf(f, "]};\n"
"const LW=%d,AX=%d,CH=%d,W=D.cell_w;\n"
"const cv=document.getElementById('c'),g=cv.getContext('2d');\n"
"cv.width=LW+D.cols*W+40;cv.height=AX+(D.top+1)*CH+20;\n"
"g.fillStyle='#fff';g.fillRect(0,0,cv.width,cv.height);\n"
"const B=n=>32-Math.clz32(n),T=Math.max(B(D.max)-1,1);\n"
"function col(n){const s=D.max>1?B(n)-1:1;"
"const h=(a,m)=>(a-Math.trunc(m*s/T)).toString(16).padStart(2,'0');"
"return '#'+h(255,79)+h(236,236)+h(160,160);}\n"
"D.cells.forEach((c,x)=>c.forEach((n,b)=>{if(!n)return;g.fillStyle=col(n);"
"g.fillRect(LW+x*W,AX+(D.top-b)*CH,W,CH);}));\n"
"g.fillStyle='#000';g.font='10px sans-serif';g.textBaseline='top';\n"
"D.labels.forEach((s,b)=>g.fillText(s,4,AX+(D.top-b)*CH+2));\n"
"const span=D.col_ns*D.cols;let st=1000;while(span/st>10)st*=(String(st)[0]==='2'?2.5:2);\n"
"for(let t=0;t<=span;t+=st){const x=LW+Math.round(t/D.col_ns*W);g.fillRect(x,AX-5,1,5);"
"g.fillText(((D.since+t)/1e6).toFixed(st<1e6?3:0)+' ms',x+2,2);}\n"
"document.body.setAttribute('data-drawn-ms',performance.now().toFixed(0));\n"
"</script></body></html>\n", HM_LABEL_W, HM_AXIS_H, HM_CELL_H);
	return ferror(f) ? -EIO : 0;
}
