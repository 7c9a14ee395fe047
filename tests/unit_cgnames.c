// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The cgroup name cache forgets (serve: removed cgroups), and keeps the rest. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include "event/cgnames.h"

Test(cgnames, forgotten_names_go_and_every_other_stays_found)
{
	enum { N = 5000 };
	struct cgnames *n = cgnames_table();
	static bool gone[N];
	char path[64];
	size_t left = 0;

	cr_assert(n);
	/* ids close together and far apart: long probe chains, wrapping */
	for (uint64_t i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/c%llu", (unsigned long long)i);
		cr_assert_eq(cgnames_set(n, 1 + i * (i % 3 ? 1 : 4096), path), 0);
	}
	srand(23);
	for (int k = 0; k < N * 3 / 4; k++) {
		uint64_t i = rand() % N;

		cgnames_forget(n, 1 + i * (i % 3 ? 1 : 4096));
		gone[i] = true;
	}
	cgnames_forget(n, 0);
	cgnames_forget(n, 999999999); /* never known */
	for (uint64_t i = 0; i < N; i++) {
		const char *p = cgnames_cached(n, 1 + i * (i % 3 ? 1 : 4096));

		snprintf(path, sizeof(path), "/c%llu", (unsigned long long)i);
		if (gone[i]) {
			cr_assert_null(p, "id %llu forgotten, still %s",
				       (unsigned long long)i, p);
			continue;
		}
		cr_assert(p && !strcmp(p, path), "id %llu lost its name",
			  (unsigned long long)i);
		left++;
	}
	cr_assert_eq(cgnames_count(n), left);
	/* and names can come back */
	cr_assert_eq(cgnames_set(n, 1, "/again"), 0);
	cr_assert_str_eq(cgnames_path(n, 1), "/again");
	cgnames_free(n);
}

/*
 * A tenant's cgroup that carries a host container's id is never given the
 * host container's names or label (issue 32, item 5).
 */
Test(cgnames, a_look_alike_never_takes_a_containers_names)
{
#define CT "3f4e5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081"
	struct cgnames *n = cgnames_table();
	struct ct_names cn = { .name = "web" };
	struct cgname host, fake, rootless;

	cr_assert_eq(cgnames_set(n, 10, "/system.slice/docker-" CT ".scope"), 0);
	cr_assert_eq(cgnames_set(n, 11, "/tenant/system.slice/docker-" CT ".scope"), 0);
	cr_assert_eq(cgnames_set(n, 12, "/user.slice/user-1001.slice/user@1001.service/"
				 "user.slice/docker-" CT ".scope"), 0);
	cr_assert_eq(cgnames_set_ct_names(n, CT, &cn), 0);
	cr_assert(cgnames_get(n, 10, &host) && cgnames_get(n, 11, &fake) &&
		  cgnames_get(n, 12, &rootless));
	cr_assert_str_eq(host.name_label, "docker:web");
	cr_assert_null(fake.ct, "a look-alike is no container");
	cr_assert_str_eq(cgnames_label(n, 11), "/tenant/system.slice/docker-" CT ".scope");
	cr_assert_not_null(rootless.ct);
	cr_assert_null(rootless.names);
	cr_assert_str_eq(rootless.name_label, "user@1001/docker:3f4e5a6b7c8d");
	cgnames_free(n);
#undef CT
}
