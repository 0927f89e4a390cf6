/* consumer.c - a program built against an installed clqsort (tests/check_package.sh): sorts a
 * small host array and checks the result. */
#include <clqsort.h>

#include <stdint.h>
#include <stdio.h>

int main(void)
{
    clqsort_context *ctx;
    if (clqsort_create(&ctx, NULL) != CLQSORT_SUCCESS) {
        fprintf(stderr, "%s\n", clqsort_last_error(NULL));
        return 1;
    }
    int32_t a[8] = {5, -3, 9, 0, -7, 9, 2, -3};
    const int32_t want[8] = {-7, -3, -3, 0, 2, 5, 9, 9};
    clqsort_status s = clqsort_sort_host(ctx, a, 8, CLQSORT_KEY_INT32, 0);
    clqsort_release(ctx);
    if (s != CLQSORT_SUCCESS) {
        fprintf(stderr, "sort: status %d\n", (int)s);
        return 1;
    }
    for (int i = 0; i < 8; i++)
        if (a[i] != want[i]) {
            fprintf(stderr, "wrong order at %d: %d, expected %d\n", i, (int)a[i], (int)want[i]);
            return 1;
        }
    puts("consumer: sorted");
    return 0;
}
