package org.jtarget.ctl;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Columns padded to their widest cell, a header line first: what {@code jtargetctl} prints for people. */
final class Table {

    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
        rows.add(header);
    }

    Table row(Object... cells) {
        String[] text = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            text[i] = cells[i] == null ? "-" : String.valueOf(cells[i]);
        }
        rows.add(text);
        return this;
    }

    void print(PrintWriter out) {
        int columns = rows.get(0).length;
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(i == columns - 1 ? r[i] : String.format("%-" + (width[i] + 2) + "s", r[i]));
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
