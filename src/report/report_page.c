/* The report's page (report.h): a summary on top, then the rows, drawn by the page's script
 * only as they scroll into view from the rows' data (JSON in the page), so that a page of
 * tens of thousands of rows opens in seconds. A small report holds its pictures in the
 * page (one file); a larger one puts them in files beside it (FILE_files/, a script each
 * of PICTURE_CHUNK rows), which the page loads as their rows appear. Search, filters and
 * sorting work on the data, not on the document. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/os.h"
#include "report.h"

enum {
	EMBEDDED_ROWS = 100, /* pictures in the page up to this many rows */
	PICTURE_CHUNK = 50,  /* rows of pictures in one file beside the page */
	ROW_HEIGHT = 300     /* pixels; the page places rows by it */
};

/* ---- text ---------------------------------------------------------------------------------- */

static void html(text_buf *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': tb_puts(b, "&amp;"); break;
		case '<': tb_puts(b, "&lt;"); break;
		case '>': tb_puts(b, "&gt;"); break;
		case '"': tb_puts(b, "&quot;"); break;
		case '\'': tb_puts(b, "&#39;"); break;
		default: tb_putc(b, *s);
		}
	}
}

static void putf(text_buf *b, const char *fmt, ...) __attribute__((format(OS_PRINTF, 2, 3)));
static void putf(text_buf *b, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tb_puts(b, buf);
}

/* A JSON string (or null), safe inside a <script> element: '<', '>' and '&' escaped too. */
static void json(text_buf *b, const char *s)
{
	if (!s) {
		tb_puts(b, "null");
		return;
	}
	tb_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': tb_puts(b, "\\\""); break;
		case '\\': tb_puts(b, "\\\\"); break;
		case '\n': tb_puts(b, "\\n"); break;
		case '\r': tb_puts(b, "\\r"); break;
		case '\t': tb_puts(b, "\\t"); break;
		case '<': tb_puts(b, "\\u003c"); break;
		case '>': tb_puts(b, "\\u003e"); break;
		case '&': tb_puts(b, "\\u0026"); break;
		default:
			if (*p < 0x20) putf(b, "\\u%04x", *p);
			else tb_putc(b, (char)*p);
		}
	}
	tb_putc(b, '"');
}

static void json_png(text_buf *b, const char *base64)
{
	if (!base64) {
		tb_puts(b, "null");
		return;
	}
	tb_puts(b, "\"data:image/png;base64,");
	tb_puts(b, base64);
	tb_putc(b, '"');
}

/* A row's four pictures, as the page takes them: source, its UVs, result, its UVs. */
static void json_pictures(text_buf *b, const report_result *res)
{
	for (int k = 0; k < 4; k++) {
		if (k) tb_putc(b, ',');
		json_png(b, k & 1 ? res->side[k / 2].uv64 : res->side[k / 2].png64);
	}
}

/* ---- a row's data ------------------------------------------------------------------------ */

static size_t count_lines(const char *text, const char *kind)
{
	size_t n = 0;
	for (const char *t = text; t && (t = strstr(t, kind)); t += strlen(kind)) n++;
	return n;
}

/* A row's counts: the messages said for it (the conversion's, or what reading its sides
 * said), a side that could not be read or drawn an error. */
static void row_counts(const report_row *row, size_t *warnings, size_t *errors)
{
	const report_result *res = row->result;
	if (row->status >= 0) *warnings = row->warnings, *errors = row->errors;
	else *warnings = count_lines(res->said.text, ": warning: "), *errors = count_lines(res->said.text, ": error: ");
	for (int s = 0; s < 2; s++)
		if (res->side[s].problem && (s ? row->b.path : row->a.path) && row->status >= 0) ++*errors;
}

/* What a row is, for the filters and the order: failed (a conversion that failed, or a
 * side that could not be read or drawn), only in one tree, different, different as
 * expected, equal, or not compared. */
static const char *row_kind(const report_row *row, size_t errors)
{
	const report_result *res = row->result;
	bool unread = false;
	for (int s = 0; s < 2; s++) unread = unread || ((s ? row->b.path : row->a.path) && !res->side[s].read);
	if (row->status == REPORT_FAILED || errors || unread) return "failed";
	if (row->status < 0 && (!row->a.path || !row->b.path)) return "only";
	if (res->differences > 0) return res->expected ? "expected" : "different";
	return res->differences == 0 ? "equal" : "none";
}

static void row_json(text_buf *b, const report_row *row, size_t index, bool embed)
{
	const report_result *res = row->result;
	size_t warnings, errors;
	row_counts(row, &warnings, &errors);
	tb_puts(b, "{\"n\":");
	json(b, row->a.path ? row->a.path : row->b.path);
	tb_puts(b, ",\"a\":");
	json(b, row->a.path);
	tb_puts(b, ",\"va\":");
	json(b, row->a.vta);
	tb_puts(b, ",\"b\":");
	json(b, row->b.path);
	tb_puts(b, ",\"vb\":");
	json(b, row->b.vta);
	tb_puts(b, ",\"s\":");
	json(b, row->state);
	putf(b, ",\"k\":\"%s\",\"w\":%zu,\"e\":%zu,\"d\":%lld,\"c\":[", row_kind(row, errors), warnings, errors, res->differences);
	for (int s = 0; s < 2; s++) {
		const side_result *r = &res->side[s];
		if (r->read) putf(b, "%s%zu,%zu,%zu,%zu", s ? "," : "", r->joints, r->polygons, r->shapes, r->clips);
		else tb_puts(b, s ? ",-1,-1,-1,-1" : "-1,-1,-1,-1");
	}
	tb_puts(b, "],\"x\":");
	json(b, res->expected);
	tb_puts(b, ",\"m\":");
	if (row->status >= 0) json(b, row->messages);
	else { /* smdmx report: why a file has no partner, then what reading the sides said */
		text_buf m = { 0 };
		tb_puts(&m, row->messages);
		tb_puts(&m, res->said.text);
		json(b, m.text ? m.text : "");
		free(m.text);
	}
	tb_puts(b, ",\"f\":");
	json(b, res->shown.text);
	tb_puts(b, ",\"qa\":");
	json(b, row->a.path ? res->side[0].problem : NULL);
	tb_puts(b, ",\"qb\":");
	json(b, row->b.path ? res->side[1].problem : NULL);
	putf(b, ",\"u\":[%u,%u,%u,%u]", res->side[0].uv_width, res->side[0].uv_height, res->side[1].uv_width, res->side[1].uv_height);
	if (embed) {
		tb_puts(b, ",\"p\":[");
		json_pictures(b, res);
		tb_putc(b, ']');
	}
	putf(b, ",\"ps\":%d,\"i\":%zu}", row->status < 0, index); /* ps: the problems are in m */
}

/* ---- the page ---------------------------------------------------------------------------- */

static const char page_style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1d2330;background:#f4f5f7}"
	"h1{font-size:1.4em;margin:0 0 .2em}.title{color:#5a6272;margin:0 0 .6em;font-family:monospace;overflow-wrap:anywhere}"
	"#summary{margin:0 0 .6em}#summary b.bad{color:#a31515}"
	".controls{position:sticky;top:0;z-index:2;background:#f4f5f7;padding:.5em 0;display:flex;flex-wrap:wrap;gap:.4em;"
	"align-items:center}.controls input{font:inherit;padding:.3em .5em;min-width:18em;border:1px solid #9aa3b5;border-radius:4px}"
	".controls button{font:inherit;padding:.3em .8em;border:1px solid #9aa3b5;border-radius:4px;background:#fff;cursor:pointer}"
	".controls button.on{background:#26324a;color:#fff;border-color:#26324a}#shown{color:#5a6272}"
	".row{display:grid;grid-template-columns:20em 266px 266px 14em minmax(12em,1fr) minmax(12em,1fr);gap:0 .6em;"
	"box-sizing:border-box;border-top:1px solid #d5d9e0;background:#fff;padding:.4em .6em}"
	".head{position:sticky;top:3.2em;z-index:1;background:#26324a;color:#fff;font-weight:600}.head span[data-sort]{cursor:pointer}"
	".head span[data-sort]:after{content:' \\2195';opacity:.5}#list{position:relative}#list .row{position:absolute;left:0;right:0;"
	"overflow:hidden}.row>div{overflow:auto;min-width:0}.file{font-family:monospace;font-size:12px;"
	"overflow-wrap:anywhere}.pic img{display:block;image-rendering:pixelated}.pic img.uv{position:relative;margin-top:-100px;"
	"max-width:96px;max-height:96px;border:1px solid #d5d9e0;background:#fff}"
	".none{width:256px;height:256px;display:flex;align-items:center;justify-content:center;text-align:center;"
	"background:#e6e8ec;color:#8a1c1c;font-size:12px;padding:0 1em;box-sizing:border-box;overflow-wrap:anywhere}"
	".none.wait{color:#5a6272}table.counts td{padding:0 .5em 0 0}.state{font-weight:600;font-family:system-ui,sans-serif}"
	".k-failed .state,.bad{color:#a31515}.good{color:#1c6b2c}.exp{color:#7a5a00}"
	"pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;margin:.3em 0}";

/* The page's script, in parts (a C string literal is at most 4,095 bytes). */
static const char *const page_script[] = {
	"(function(){\n"
	"var D=JSON.parse(document.getElementById('data').textContent),R=D.rows,H=D.height;\n"
	"var list=document.getElementById('list'),shownEl=document.getElementById('shown');\n"
	"var order=[],filter='all',query='',sortKey='',dir=1,live={},pics={},asked={};\n"
	"var sev={failed:0,different:1,expected:2,only:3,none:4,equal:5};\n"
	"function esc(s){return String(s).replace(/[&<>\"']/g,function(c){return '&#'+c.charCodeAt(0)+';';});}\n"
	"function match(r){switch(filter){case 'failed':return r.k==='failed';case 'warned':return r.w>0;\n"
	"  case 'different':return r.k==='different';case 'expected':return r.k==='expected';case 'only':return r.k==='only';\n"
	"  case 'equal':return r.k==='equal';}return true;}\n"
	"function hay(r){if(r.h===undefined)r.h=[r.a,r.va,r.b,r.vb,r.s,r.m,r.f,r.x,r.qa,r.qb].join('\\n').toLowerCase();return r.h;}\n"
	"var keys={name:function(r){return r.n;},state:function(r){return sev[r.k];},\n"
	"  joints:function(r){return r.c[0]>=0?r.c[0]:r.c[4];},polygons:function(r){return r.c[1]>=0?r.c[1]:r.c[5];},\n"
	"  messages:function(r){return r.e*1e9+r.w;},differences:function(r){return r.d;}};\n"
	"function build(){var q=query.toLowerCase(),i;order=[];\n"
	"  for(i=0;i<R.length;i++)if(match(R[i])&&(!q||hay(R[i]).indexOf(q)>=0))order.push(i);\n"
	"  var key=keys[sortKey];\n"
	"  order.sort(function(x,y){var a=R[x],b=R[y],c;if(key){var p=key(a),q2=key(b);c=(p<q2?-1:p>q2?1:0)*dir;}\n"
	"    else c=sev[a.k]-sev[b.k];return c||x-y;});\n"
	"  list.style.height=(order.length*H)+'px';shownEl.textContent=order.length+' of '+R.length+' shown';\n"
	"  for(var k in live)live[k].remove();live={};draw();}\n"
	,
	"function picture(r,s){var p=D.chunk?pics[Math.floor(r.i/D.chunk)]:r.p,q=s?r.qb:r.qa,path=s?r.b:r.a;\n"
	"  if(!path)return '<div class=\"none\">no '+(s?'result':'source')+'</div>';\n"
	"  if(D.chunk&&!p)return '<div class=\"none wait\">loading</div>';\n"
	"  var k=(D.chunk?(r.i%D.chunk)*4:0)+s*2,img=p[k],uv=p[k+1];\n"
	"  if(!img)return '<div class=\"none\">'+esc(q||'not drawn')+'</div>';\n"
	"  return '<img alt=\"'+(s?'result':'source')+'\" width=\"256\" height=\"256\" src=\"'+img+'\">'+\n"
	"    (uv?'<img class=\"uv\" alt=\"'+(s?'result':'source')+' UVs\" src=\"'+uv+'\">':'');}\n"
	"function counts(r){var n=['joints','polygons','shapes','clips'],t='<table class=\"counts\"><tr><td></td><td>source</td><td>result</td></tr>';\n"
	"  for(var k=0;k<4;k++)t+='<tr><td>'+n[k]+'</td><td>'+(r.c[k]<0?'-':r.c[k])+'</td><td>'+(r.c[k+4]<0?'-':r.c[k+4])+'</td></tr>';\n"
	"  return t+'</table>';}\n"
	"function row(r,pos){var e=document.createElement('div');e.className='row k-'+r.k;e.style.top=(pos*H)+'px';e.style.height=H+'px';\n"
	"  e.dataset.name=r.n;e.dataset.index=r.i;\n"
	"  var f=esc(r.a||'(none)')+(r.va?'<br>+ '+esc(r.va):'')+'<br>&rarr; '+esc(r.b||'(none)')+(r.vb?'<br>+ '+esc(r.vb):'')+\n"
	"    '<div class=\"state\">'+esc(r.s)+'</div>';\n"
	"  var m=r.e||r.w?'<div class=\"'+(r.e?'bad':'')+'\">'+r.e+' error'+(r.e==1?'':'s')+', '+r.w+' warning'+(r.w==1?'':'s')+'</div>':'';\n"
	"  if(r.m)m+='<pre>'+esc(r.m)+'</pre>';\n"
	"  if(!r.ps)[r.qa,r.qb].forEach(function(q,s){if(q)m+='<pre>'+esc((s?r.b:r.a)+': '+q)+'</pre>';});\n"
	"  var v=r.d===0?'<span class=\"good\">same</span>':r.d<0?'not compared':\n"
	"    (r.x?'<span class=\"exp\">'+r.d+' difference'+(r.d==1?'':'s')+', as expected: '+esc(r.x)+'</span>':\n"
	"     '<span class=\"bad\">'+r.d+' difference'+(r.d==1?'':'s')+'</span>')+'<pre>'+esc(r.f||'')+'</pre>';\n"
	"  e.innerHTML='<div class=\"file\">'+f+'</div><div class=\"pic\">'+picture(r,0)+'</div><div class=\"pic\">'+picture(r,1)+\n"
	"    '</div><div>'+counts(r)+'</div><div>'+(m||'none')+'</div><div>'+v+'</div>';\n"
	"  return e;}\n"
	,
	"function load(k){if(asked[k])return;asked[k]=1;var s=document.createElement('script');\n"
	"  s.src=D.dir+'p'+('0000'+k).slice(-5)+'.js';document.head.appendChild(s);}\n"
	"window.smdmxPictures=function(k,p){pics[k]=p;for(var pos in live){var r=R[order[pos]];\n"
	"  if(Math.floor(r.i/D.chunk)==k){var e=row(r,+pos);list.replaceChild(e,live[pos]);live[pos]=e;}}};\n"
	"function draw(){var top=list.getBoundingClientRect().top,first=Math.max(0,Math.floor(-top/H)-2);\n"
	"  var last=Math.min(order.length,first+Math.ceil(window.innerHeight/H)+5),pos;\n"
	"  for(pos in live)if(pos<first||pos>=last){live[pos].remove();delete live[pos];}\n"
	"  for(pos=first;pos<last;pos++)if(!live[pos]){var r=R[order[pos]];if(D.chunk)load(Math.floor(r.i/D.chunk));\n"
	"    live[pos]=list.appendChild(row(r,pos));}}\n"
	"window.addEventListener('scroll',draw);window.addEventListener('resize',draw);\n"
	"function on(){document.querySelectorAll('.controls button').forEach(function(b){b.classList.toggle('on',b.dataset.show===filter);});}\n"
	"document.querySelectorAll('.controls button').forEach(function(b){b.addEventListener('click',function(){\n"
	"  filter=b.dataset.show;on();build();});});\n"
	"document.getElementById('search').addEventListener('input',function(e){query=e.target.value;build();});\n"
	"document.querySelectorAll('.head span[data-sort]').forEach(function(h){h.addEventListener('click',function(){\n"
	"  var k=h.dataset.sort;dir=sortKey===k?-dir:1;sortKey=k;build();});});\n"
	"window.smdmxReport={rows:R.length,search:function(q){query=q;document.getElementById('search').value=q;build();},\n"
	"  show:function(f){filter=f;on();build();},sort:function(k,d){sortKey=k;dir=d||1;build();},\n"
	"  shown:function(){return order.map(function(i){return R[i].n;});},\n"
	"  onScreen:function(){window.scrollTo(0,0);draw();var n=[],top=list.getBoundingClientRect().top;\n"
	"    for(var p=0;p<order.length&&top+p*H<window.innerHeight;p++)n.push(R[order[p]].n);return n;}};\n"
	"on();build();window.smdmxReport.readyAt=performance.now();window.smdmxReport.ready=true;})();\n",
	NULL
};

/* The summary: every row's kind counted, the failed first. */
static void summary(text_buf *b, const report_page *r, size_t counts[7])
{
	putf(b, "<p id=\"summary\">%zu row%s: ", r->count, r->count == 1 ? "" : "s");
	if (counts[1]) putf(b, "<b class=\"bad\">%zu failed</b>, ", counts[1]);
	else tb_puts(b, "none failed, ");
	putf(b, "%zu with warnings, %zu different, %zu different as expected, %zu only in one tree, %zu equal</p>\n", counts[2],
	     counts[3], counts[4], counts[5], counts[6]);
}

static void controls(text_buf *b, const size_t counts[7])
{
	static const char *const shows[7] = { "all", "failed", "warned", "different", "expected", "only", "equal" };
	static const char *const labels[7] = { "all", "failed", "warnings", "different", "as expected", "only in one tree", "equal" };
	tb_puts(b, "<div class=\"controls\"><input id=\"search\" type=\"search\" placeholder=\"search paths and messages\">");
	for (int k = 0; k < 7; k++)
		putf(b, "<button type=\"button\" id=\"show-%s\" data-show=\"%s\">%s (%zu)</button>", shows[k], shows[k], labels[k], counts[k]);
	tb_puts(b, "<span id=\"shown\"></span></div>\n");
	tb_puts(b, "<div class=\"row head\"><span data-sort=\"name\">file</span><span data-sort=\"state\">source</span><span>result</span>"
	           "<span data-sort=\"polygons\">counts</span><span data-sort=\"messages\">messages</span>"
	           "<span data-sort=\"differences\">smdmx diff</span></div>\n");
}

/* The page's text; dir the folder of its pictures as the page names it (NULL: in it). */
static void page(text_buf *b, const report_page *r, const char *dir)
{
	size_t counts[7] = { r->count, 0, 0, 0, 0, 0, 0 };
	for (size_t i = 0; i < r->count; i++) {
		size_t w, e;
		row_counts(&r->rows[i], &w, &e);
		const char *k = row_kind(&r->rows[i], e);
		counts[1] += !strcmp(k, "failed");
		counts[2] += w > 0;
		counts[3] += !strcmp(k, "different");
		counts[4] += !strcmp(k, "expected");
		counts[5] += !strcmp(k, "only");
		counts[6] += !strcmp(k, "equal");
	}
	tb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>smdmx report</title>\n<style>");
	tb_puts(b, page_style);
	tb_puts(b, "</style></head>\n<body><h1>smdmx report</h1><p class=\"title\">");
	html(b, r->title);
	tb_puts(b, "</p>\n");
	summary(b, r, counts);
	controls(b, counts);
	tb_puts(b, "<div id=\"list\"></div>\n<script id=\"data\" type=\"application/json\">{\"height\":");
	putf(b, "%d,\"chunk\":%d,\"dir\":", ROW_HEIGHT, dir ? PICTURE_CHUNK : 0);
	json(b, dir ? dir : "");
	tb_puts(b, ",\"rows\":[\n");
	for (size_t i = 0; i < r->count; i++) {
		row_json(b, &r->rows[i], i, !dir);
		tb_puts(b, i + 1 < r->count ? ",\n" : "\n");
	}
	tb_puts(b, "]}</script>\n<script>\n");
	for (size_t i = 0; page_script[i]; i++) tb_puts(b, page_script[i]);
	tb_puts(b, "</script></body></html>\n");
}

/* The pictures of rows [first, first + PICTURE_CHUNK) as a script the page loads. */
static void chunk(text_buf *b, const report_page *r, size_t k)
{
	putf(b, "smdmxPictures(%zu,[", k);
	for (size_t i = k * PICTURE_CHUNK; i < r->count && i < (k + 1) * PICTURE_CHUNK; i++) {
		if (i > k * PICTURE_CHUNK) tb_putc(b, ',');
		json_pictures(b, r->rows[i].result);
		tb_putc(b, '\n');
	}
	tb_puts(b, "]);\n");
}

bool report_page_files(const report_page *r, const char *path, report_files *out)
{
	memset(out, 0, sizeof(*out));
	bool beside = r->count > EMBEDDED_ROWS;
	size_t chunks = beside ? (r->count + PICTURE_CHUNK - 1) / PICTURE_CHUNK : 0;
	out->files = calloc(chunks + 1, sizeof(whole_file));
	if (!out->files || !report_files_read(r, out)) return false;
	/* FILE.html's pictures in FILE_files/, named from the page's folder */
	const char *ext = os_path_extension(path), *slash = os_last_separator(path);
	size_t stem = strlen(path) - (*ext ? strlen(ext) + 1 : 0);
	char *folder = beside ? os_strf("%.*s_files", (int)stem, path) : NULL;
	char *name = folder ? os_strf("%s/", folder + (slash ? (size_t)(slash - path) + 1 : 0)) : NULL;
	if (beside && !name) {
		free(folder);
		return false;
	}
	text_buf b = { 0 };
	page(&b, r, name);
	free(name);
	bool ok = !b.failed;
	out->files[out->count++] = (whole_file){ os_strf("%s", path), b.text, b.len };
	for (size_t k = 0; ok && k < chunks; k++) {
		text_buf c = { 0 };
		chunk(&c, r, k);
		ok = !c.failed;
		out->files[out->count++] = (whole_file){ os_strf("%s/p%05zu.js", folder, k), c.text, c.len };
	}
	free(folder);
	for (size_t i = 0; i < out->count; i++) ok = ok && out->files[i].path && out->files[i].data;
	return ok;
}

void report_files_free(report_files *f)
{
	for (size_t i = 0; f->files && i < f->count; i++) {
		free((char *)f->files[i].path);
		free((void *)f->files[i].data);
	}
	free(f->files);
	free(f->read);
	memset(f, 0, sizeof(*f));
}
