/* One decision per line on stdin: "<to_call_chips> <pot_chips> <cards...>"; one answer per
 * line on stdout: "call" when the price is at most a quarter of the pot, else "fold". */
#include <stdio.h>

int main(void) {
    char line[4096];
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin) != NULL) {
        long to_call = 0, pot = 0;
        if (sscanf(line, "%ld %ld", &to_call, &pot) != 2) {
            puts("fold");
            continue;
        }
        puts(4 * to_call <= pot || to_call == 0 ? "call" : "fold");
    }
    return 0;
}
