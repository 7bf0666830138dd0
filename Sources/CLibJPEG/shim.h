// The system libjpeg-turbo (Debian: libjpeg62-turbo-dev). jpeglib.h needs stdio.h first.
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
