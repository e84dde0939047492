#include "greet.h"

int main(int argc, char **argv)
{
    const char *who = argc > 1 ? argv[1] : "world";
    greet(who);
    shout(who);
    return 0;
}
