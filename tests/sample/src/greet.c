#include "greet.h"
#include "version.h"
#include <stdio.h>

void greet(const char *who)
{
    printf("hello, %s (greet " GREET_VERSION ")\n", who);
}
