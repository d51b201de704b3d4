#include <stdio.h>

#include "mathx.h"
#include "text.h"

int main(void) {
    char line[64];
    char word[] = "opsrun";
    printf("%s\n", greeting("c-program", line, sizeof line));
    printf("gcd(84, 36) = %lu\n", gcd(84, 36));
    printf("10! = %lu\n", factorial(10));
    printf("opsrun reversed: %s\n", reverse(word));
    return 0;
}
