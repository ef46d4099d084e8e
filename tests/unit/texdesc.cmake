# Texture descriptor rules (src/util/texdesc.c): what the cpu backend and
# anygpu serve accept from the runtime or a client.
ag_unit_test(test_texdesc SOURCES test_texdesc.c LIBS ag_util)
