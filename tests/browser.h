/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Pictures as a user sees them: a page rendered by a real headless browser
 * (Debian's chromium-headless-shell or chromium) to PNG, and the PNG
 * decoded to pixels to check what it shows.
 */
#ifndef ABICAP_TEST_BROWSER_H
#define ABICAP_TEST_BROWSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The browser to render with; skips (fails under CI) if none is installed. */
const char *require_browser(void);

/*
 * html rendered at w x h CSS pixels (device scale 1) into png (url_suffix,
 * e.g. "#noarrows", appended to its file:// URL), failing the test past
 * deadline_s (a hang guard): the seconds it took.
 */
double browser_screenshot(const char *html, const char *url_suffix,
			  const char *png, int w, int h, int deadline_s);

/*
 * The page's DOM once its scripts ran (url_suffix appended to its URL, at
 * w x h), malloc'd: what a user's interaction wrote into it.
 */
/* browser_screenshot with the scrollbars a user's window shows. */
double browser_screenshot_as_seen(const char *html, const char *url_suffix,
				  const char *png, int w, int h, int deadline_s);
char *browser_dom(const char *html, const char *url_suffix, int w, int h,
		  int deadline_s);

/* An 8-bit RGB or RGBA PNG, decoded. */
struct image {
	uint32_t w, h;
	uint8_t *rgb; /* w * h * 3 */
};
/* Decode path (asserts it is a PNG this reads). */
void png_read(const char *path, struct image *im);
void image_free(struct image *im);
/* The pixel at (x, y) as 0xRRGGBB. */
uint32_t image_px(const struct image *im, uint32_t x, uint32_t y);
/* "#rrggbb" to 0xRRGGBB. */
uint32_t colour_of(const char *hex);

#endif
