// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A JSON document, indented, to stdout or through outfile to a file. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lib/json_write.h"
#include "lib/outfile.h"
#include "lib/util.h"

int json_write_file(json_t *doc, const char *path, bool force,
		    const char *input)
{
	char err[ERRMSG_LEN];
	struct outfile of;
	FILE *out = stdout;
	int ret = 0;

	if (path) {
		if (input)
			ret = outfile_distinct(path, input, "the input", err,
					       sizeof(err));
		if (!ret)
			ret = outfile_open(&of, path, force, err, sizeof(err));
		if (ret) {
			ab_error("%s", err);
			return ret;
		}
		out = fdopen(of.fd, "w");
		if (!out) {
			ab_error("cannot write '%s': %s", path, strerror(errno));
			outfile_abort(&of, false);
			return EXIT_RUNTIME;
		}
		of.fd = -1; /* the stream's now */
	}
	json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	if (!path) {
		if (!fflush(out))
			return EXIT_OK;
		ab_error("cannot write 'stdout': %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	ret = fflush(out) || fsync(fileno(out)) ? errno : 0;
	if (fclose(out) && !ret)
		ret = errno;
	if (ret) {
		ab_error("cannot write '%s': %s", path, strerror(ret));
		outfile_abort(&of, false);
		return EXIT_RUNTIME;
	}
	if (outfile_commit(&of, err, sizeof(err))) {
		ab_error("%s", err);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
