#!/bin/sh
echo "schema-engine is not available offline; migrations are applied by @starpo/db" >&2
exit 1
