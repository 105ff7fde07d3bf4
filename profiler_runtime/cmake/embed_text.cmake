# cmake -DIN=file -DOUT=header -DNAME=identifier -P embed_text.cmake: the file as a C++ string.
file(READ "${IN}" _text)
file(WRITE "${OUT}" "// Generated from ${IN}.\nstatic const char ${NAME}[] = R\"EMBED(${_text})EMBED\";\n")
