// GTK 3 and WebKitGTK 4.1 for Swift (Debian: libwebkit2gtk-4.1-dev). Only Linux builds use it.
#ifndef PEPPER_CWEBKITGTK_H
#define PEPPER_CWEBKITGTK_H

#include <gtk/gtk.h>
#include <webkit2/webkit2.h>

#endif
