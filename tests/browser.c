// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A headless browser's screenshot of a page, and a PNG decoder (zlib). */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "browser.h"
#include "harness.h"

const char *require_browser(void)
{
	static const char *const names[] = {
		"/usr/bin/chromium-headless-shell", "/usr/bin/chromium",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!access(names[i], X_OK))
			return names[i];
	if (getenv("CI"))
		cr_assert_fail("no headless browser: install "
			       "chromium-headless-shell (scripts/setup.sh)");
	test_skip("no headless browser: install chromium-headless-shell "
		     "(scripts/setup.sh)");
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The browser on html (url_suffix appended to its file:// URL) doing
 * `action` (--screenshot=PNG, --dump-dom), its profile and log beside
 * base, its stdout into out (the log if NULL), within deadline_s: the
 * seconds it took.
 */
/* Scrollbars as a user's window has them (else hidden, as by default). */
static bool scrollbars;

static double browse(const char *html, const char *url_suffix,
		     const char *action, const char *size, const char *base,
		     const char *out, int deadline_s)
{
	char url[PATH_MAX + 64], real[PATH_MAX];
	char prof[PATH_MAX + 16], log[PATH_MAX + 8];
	const char *bin = require_browser();
	double t0, t;
	int st = 0;
	pid_t pid;

	cr_assert(realpath(html, real), "%s: no such page", html);
	snprintf(url, sizeof(url), "file://%s%s", real, url_suffix ? url_suffix : "");
	snprintf(prof, sizeof(prof), "--user-data-dir=%s.profile", base);
	snprintf(log, sizeof(log), "%s.log", base);
	t0 = now_s();
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		char *const argv[] = {
			(char *)bin, "--no-sandbox", "--headless",
			"--disable-gpu",
			scrollbars ? "--no-first-run" : "--hide-scrollbars",
			"--force-device-scale-factor=1", prof, (char *)action,
			(char *)size, url, NULL,
		};
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int ofd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600) : fd;

		if (fd >= 0)
			dup2(fd, 2);
		if (ofd >= 0)
			dup2(ofd, 1);
		setpgid(0, 0);
		execv(bin, argv);
		_exit(127);
	}
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now_s() - t0 > deadline_s) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			cr_assert_fail("%s did not render %s within %d s (a hang "
				       "guard)", bin, html, deadline_s);
		}
		usleep(20000);
	}
	t = now_s() - t0;
	cr_assert(WIFEXITED(st) && !WEXITSTATUS(st),
		  "%s failed rendering %s (status %d; its log: %s)", bin, html,
		  st, log);
	return t;
}

double browser_screenshot(const char *html, const char *url_suffix,
			  const char *png, int w, int h, int deadline_s)
{
	char shot[PATH_MAX + 16], size[64];
	double t;

	snprintf(shot, sizeof(shot), "--screenshot=%s", png);
	snprintf(size, sizeof(size), "--window-size=%d,%d", w, h);
	unlink(png);
	t = browse(html, url_suffix, shot, size, png, NULL, deadline_s);
	cr_assert_eq(access(png, R_OK), 0, "the browser wrote no screenshot "
		     "of %s", html);
	return t;
}

double browser_screenshot_as_seen(const char *html, const char *url_suffix,
				  const char *png, int w, int h, int deadline_s)
{
	double t;

	scrollbars = true;
	t = browser_screenshot(html, url_suffix, png, w, h, deadline_s);
	scrollbars = false;
	return t;
}

char *browser_dom(const char *html, const char *url_suffix, int w, int h,
		  int deadline_s)
{
	char out[PATH_MAX + 8], size[64], *dom;
	int fd;

	snprintf(out, sizeof(out), "%s.dom", html);
	snprintf(size, sizeof(size), "--window-size=%d,%d", w, h);
	browse(html, url_suffix, "--dump-dom", size, out, out, deadline_s);
	fd = open(out, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "the browser wrote no DOM of %s", html);
	dom = read_all(fd);
	close(fd);
	return dom;
}

static uint32_t be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

void png_read(const char *path, struct image *im)
{
	size_t len, zlen = 0, pos = 8;
	uint8_t *d = read_file(path, &len), *z = malloc(len), *raw, *prev;
	uint32_t bpp = 0, stride;
	uLongf rawlen;

	cr_assert(d && z && len > 33 && !memcmp(d, "\x89PNG\r\n\x1a\n", 8),
		  "%s is not a PNG", path);
	memset(im, 0, sizeof(*im));
	while (pos + 12 <= len) {
		uint32_t n = be32(d + pos);
		const uint8_t *t = d + pos + 4;

		cr_assert_leq(n, len - pos - 12, "%s: a chunk past the end", path);
		if (!memcmp(t, "IHDR", 4)) {
			im->w = be32(d + pos + 8);
			im->h = be32(d + pos + 12);
			cr_assert_eq(d[pos + 16], 8, "%s: not 8-bit", path);
			cr_assert(d[pos + 17] == 2 || d[pos + 17] == 6,
				  "%s: not RGB or RGBA", path);
			cr_assert_eq(d[pos + 20], 0, "%s: interlaced", path);
			bpp = d[pos + 17] == 2 ? 3 : 4;
		} else if (!memcmp(t, "IDAT", 4)) {
			memcpy(z + zlen, d + pos + 8, n);
			zlen += n;
		}
		pos += 12 + n;
	}
	cr_assert(bpp && im->w && im->h, "%s: no IHDR", path);
	stride = im->w * bpp;
	rawlen = (uLongf)(stride + 1) * im->h;
	raw = malloc(rawlen);
	prev = calloc(stride, 1);
	im->rgb = malloc((size_t)im->w * im->h * 3);
	cr_assert(raw && prev && im->rgb);
	cr_assert_eq(uncompress(raw, &rawlen, z, zlen), Z_OK, "%s: bad zlib",
		     path);
	cr_assert_eq(rawlen, (uLongf)(stride + 1) * im->h);
	for (uint32_t y = 0; y < im->h; y++) {
		uint8_t *line = raw + (size_t)y * (stride + 1) + 1;
		uint8_t f = line[-1];

		for (uint32_t x = 0; x < stride; x++) {
			int a = x >= bpp ? line[x - bpp] : 0, b = prev[x];
			int c = x >= bpp ? prev[x - bpp] : 0;

			switch (f) {
			case 1: line[x] = (uint8_t)(line[x] + a); break;
			case 2: line[x] = (uint8_t)(line[x] + b); break;
			case 3: line[x] = (uint8_t)(line[x] + (a + b) / 2); break;
			case 4: line[x] = (uint8_t)(line[x] + paeth(a, b, c)); break;
			default: cr_assert_eq(f, 0, "%s: filter %u", path, f);
			}
		}
		for (uint32_t x = 0; x < im->w; x++)
			memcpy(im->rgb + ((size_t)y * im->w + x) * 3,
			       line + (size_t)x * bpp, 3);
		prev = memcpy(prev, line, stride);
	}
	free(raw);
	free(prev);
	free(z);
	free(d);
}

void image_free(struct image *im)
{
	free(im->rgb);
	im->rgb = NULL;
}

uint32_t image_px(const struct image *im, uint32_t x, uint32_t y)
{
	const uint8_t *p;

	cr_assert(x < im->w && y < im->h, "pixel (%u, %u) outside %ux%u", x, y,
		  im->w, im->h);
	p = im->rgb + ((size_t)y * im->w + x) * 3;
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

uint32_t colour_of(const char *hex)
{
	return (uint32_t)strtoul(hex + 1, NULL, 16);
}
