package org.jtarget.config;

/**
 * A logical unit of a target ({@code targets[].luns[]}).
 *
 * @param lun        the LUN, 0..16383 (SAM-5 4.7.3 flat/peripheral addressing single level)
 * @param backstore  the backstore name
 * @param readOnly   key {@code read-only}: writes fail with DATA PROTECT / WRITE PROTECTED (default false)
 * @param removable  key {@code removable}: RMB bit in INQUIRY (default false)
 */
public record LunConfig(int lun, String backstore, boolean readOnly, boolean removable) {

    /** Highest LUN accepted: 14 bits, the range of single-level peripheral/flat addressing. */
    public static final int MAX_LUN = 16383;
}
