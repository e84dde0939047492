#pragma once
void greet(const char *who);
void shout(const char *who);
