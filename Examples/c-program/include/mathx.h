#ifndef MATHX_H
#define MATHX_H

/* Greatest common divisor of a and b (Euclid). */
unsigned long gcd(unsigned long a, unsigned long b);

/* n! for small n. */
unsigned long factorial(unsigned n);

#endif
