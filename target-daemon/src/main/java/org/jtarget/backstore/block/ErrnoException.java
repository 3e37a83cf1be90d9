package org.jtarget.backstore.block;

import java.io.IOException;

/**
 * A failed system call with the errno it left, so stores can map it to a SCSI meaning (EIO,
 * ENOSPC, ENODEV...) without parsing messages. The message names the call, the file and the error
 * in words (the words for ENOSPC are the ones {@code FileChannel} uses, "No space left on device").
 */
public final class ErrnoException extends IOException {

    private final int errno;

    public ErrnoException(String call, String what, int errno) {
        super(call + " on " + what + " failed: " + describe(errno));
        this.errno = errno;
    }

    /** The errno value (errno(3)). */
    public int errno() {
        return errno;
    }

    /** "errno N (meaning)" for the errors a store tells apart; "errno N" for the rest. */
    static String describe(int errno) {
        String meaning = switch (errno) {
            case NativeIo.EINTR -> "Interrupted system call";
            case NativeIo.EIO -> "Input/output error";
            case NativeIo.ENXIO -> "No such device or address";
            case NativeIo.EBADF -> "Bad file descriptor";
            case NativeIo.EACCES -> "Permission denied";
            case NativeIo.EBUSY -> "Device or resource busy";
            case NativeIo.ENODEV -> "No such device";
            case NativeIo.EINVAL -> "Invalid argument";
            case NativeIo.ENOSPC -> "No space left on device";
            case NativeIo.EOPNOTSUPP -> "Operation not supported";
            case NativeIo.EDQUOT -> "Disk quota exceeded";
            default -> null;
        };
        return meaning == null ? "errno " + errno : "errno " + errno + " (" + meaning + ")";
    }
}
