#include "mathx.h"

unsigned long gcd(unsigned long a, unsigned long b) {
    while (b != 0) {
        unsigned long r = a % b;
        a = b;
        b = r;
    }
    return a;
}

unsigned long factorial(unsigned n) {
    unsigned long result = 1;
    for (unsigned i = 2; i <= n; i++) result *= i;
    return result;
}
