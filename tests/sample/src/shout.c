#include "greet.h"
#include <ctype.h>
#include <stdio.h>

void shout(const char *who)
{
    printf("HELLO, ");
    for (const char *p = who; *p; p++)
        putchar(toupper((unsigned char)*p));
    printf("!\n");
}
