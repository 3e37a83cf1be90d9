package org.jtarget.scsi.sbc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.lun.MediumState;
import org.jtarget.scsi.lun.WorkProgress;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.RejectedExecutionException;

import static org.jtarget.scsi.cdb.Opcodes.*;

/**
 * SANITIZE (SBC-4 5.30), one instance per supported service action:
 * <pre>0 48h | 1 IMMED(7) reserved(6) AUSE(5) SERVICE ACTION(4..0) | 2..6 reserved | 7..8 PARAMETER LIST LENGTH | 9 control
 * OVERWRITE parameter list: 0 INVERT(7) TEST(6..5) OVERWRITE COUNT(4..0) | 1 reserved
 *                           | 2..3 INITIALIZATION PATTERN LENGTH | 4.. INITIALIZATION PATTERN</pre>
 * <ul>
 * <li>OVERWRITE writes the pattern (repeated from the start of every block) over every block,
 *     OVERWRITE COUNT times; with INVERT the passes alternate with the inverted pattern so that the
 *     last pass writes it as given. The list must hold 5..blocksize + 4 bytes (else INVALID FIELD
 *     IN CDB); COUNT 0, TEST other than 00b, pattern length 0 or above the block size are INVALID
 *     FIELD IN PARAMETER LIST.</li>
 * <li>BLOCK ERASE deallocates every block; offered only on a thin LU (LBPME = 1, reads of the erased
 *     blocks return zeros, WABEREQ = 01b in the Block Device Characteristics page).</li>
 * <li>CRYPTOGRAPHIC ERASE replaces the media encryption key of a store that encrypts
 *     ({@code Backstore.supportsCryptoErase()}: {@code encrypt: true}), so every block written
 *     before reads as unspecified data (SBC-4 4.11.4); on a thin store it then deallocates every
 *     block as BLOCK ERASE does, so reads return zeros. Reads after it complete with GOOD status
 *     (WACEREQ 01b). Elsewhere it is not offered (INVALID FIELD IN CDB, WACEREQ 00b).</li>
 * <li>EXIT FAILURE MODE leaves the failure mode of a failed sanitize requested with AUSE = 1; after
 *     one with AUSE = 0 it (and any SANITIZE with AUSE = 1) is INVALID FIELD IN CDB (SBC-4 5.30.1).</li>
 * </ul>
 * BLOCK ERASE, CRYPTOGRAPHIC ERASE and EXIT FAILURE MODE take no parameter list (length other
 * than 0: INVALID FIELD IN CDB). While the operation runs, the gate answers NOT READY / SANITIZE
 * IN PROGRESS to everything but INQUIRY, REPORT LUNS and REQUEST SENSE (which reports the
 * progress). IMMED = 1 returns status once the parameters are validated and the operation has
 * started; IMMED = 0 returns it when the operation ends. The work runs on the LU's I/O executor
 * in bounded chunks, never on an event loop, paced to {@code daemon.sanitize-rate}. It continues
 * through aborts and resets (SBC-4 4.11.2), see {@link Job}.
 */
public final class SbcSanitize implements CommandHandler {

    private static final Logger log = LoggerFactory.getLogger(SbcSanitize.class);

    static final int CHUNK_BYTES = 1024 * 1024;
    private static final int FLAGS_OFFSET = 1;
    private static final int IMMED = 0x80;
    private static final int RESERVED_BIT = 0x40;
    private static final int AUSE = 0x20;
    private static final int PARAMETER_LIST_LENGTH_OFFSET = 7;
    private static final int HEADER_LENGTH = 4;
    private static final int INVERT = 0x80;
    private static final int TEST_MASK = 0x60;
    private static final int COUNT_MASK = 0x1F;
    private static final int PATTERN_LENGTH_OFFSET = 2;

    private final int serviceAction;

    public SbcSanitize(int serviceAction) {
        this.serviceAction = serviceAction;
    }

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        if ((cdb[FLAGS_OFFSET] & RESERVED_BIT) != 0) {
            return ctx.invalidCdbField(FLAGS_OFFSET, 6);
        }
        for (int i = 2; i < PARAMETER_LIST_LENGTH_OFFSET; i++) {
            if (cdb[i] != 0) {
                return ctx.invalidCdbField(i, SenseBuilder.NONE);
            }
        }
        LogicalUnit lu = ctx.lu();
        SenseReason notReady = lu.medium().accessError();
        if (notReady != null && notReady != SenseReason.SANITIZE_COMMAND_FAILED) {
            return notReady; // no medium, or offline
        }
        boolean ause = (cdb[FLAGS_OFFSET] & AUSE) != 0;
        if (lu.medium().failedRestricted() && (ause || serviceAction == SA_SANITIZE_EXIT_FAILURE_MODE)) {
            // SBC-4 5.30.1: restricted completion mode is left only by a new sanitize with AUSE = 0
            return ctx.invalidCdbField(FLAGS_OFFSET, ause ? 5 : 4);
        }
        int paramLength = Cdb.u16(cdb, PARAMETER_LIST_LENGTH_OFFSET);
        if (serviceAction == SA_SANITIZE_OVERWRITE) {
            if (paramLength <= HEADER_LENGTH || paramLength > lu.blockSize() + HEADER_LENGTH) {
                return ctx.invalidCdbField(PARAMETER_LIST_LENGTH_OFFSET, SenseBuilder.NONE);
            }
            ctx.cmd().dataOutLength(paramLength);
        } else if (paramLength != 0) {
            return ctx.invalidCdbField(PARAMETER_LIST_LENGTH_OFFSET, SenseBuilder.NONE);
        }
        ctx.mode(cdb[FLAGS_OFFSET] & (IMMED | AUSE));
        if (serviceAction != SA_SANITIZE_EXIT_FAILURE_MODE) {
            // hold the whole LU so that commands already past the gate finish first
            ctx.lba(0);
            ctx.blocks((int) Math.min(lu.blockCount(), Integer.MAX_VALUE));
        }
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        MediumState medium = ctx.lu().medium();
        if (serviceAction == SA_SANITIZE_EXIT_FAILURE_MODE) {
            medium.exitFailureMode();
            return;
        }
        Job job;
        if (serviceAction == SA_SANITIZE_OVERWRITE) {
            job = overwriteJob(ctx);
            if (job == null) {
                return; // parameter list error set on ctx
            }
        } else {
            job = new Job(ctx.lu(), null, null, 1, (ctx.mode() & AUSE) != 0,
                    serviceAction == SA_SANITIZE_CRYPTOGRAPHIC_ERASE);
        }
        if (!medium.beginSanitize()) {
            job.release();
            ctx.fail(SenseReason.SANITIZE_IN_PROGRESS);
            return;
        }
        if ((ctx.mode() & IMMED) == 0) {
            // the command ends with the operation, unless it is aborted first (see Job)
            job.bind(ctx);
            ctx.detach(() -> start(job));
        } else {
            start(job);
        }
    }

    /** Runs the operation on the LU's I/O executor, or in this thread if the executor is full. */
    private static void start(Job job) {
        try {
            job.lu.ioExecutor().execute(job);
        } catch (RejectedExecutionException e) {
            log.debug("I/O executor full: running SANITIZE in the command's thread");
            job.run();
        }
    }

    /** Validates the OVERWRITE parameter list and builds the job (null: the error is set on ctx). */
    private static Job overwriteJob(CommandContext ctx) {
        ByteBuf list = ctx.cmd().dataOut();
        int length = Cdb.u16(ctx.cdb(), PARAMETER_LIST_LENGTH_OFFSET);
        if (list == null || list.readableBytes() < length) {
            ctx.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
            return null;
        }
        int at = list.readerIndex();
        int b0 = list.getUnsignedByte(at);
        int patternLength = list.getUnsignedShort(at + PATTERN_LENGTH_OFFSET);
        int bs = ctx.lu().blockSize();
        SenseReason bad = null;
        if ((b0 & TEST_MASK) != 0) {
            bad = ctx.invalidParameterField(0, 6);
        } else if ((b0 & COUNT_MASK) == 0) {
            bad = ctx.invalidParameterField(0, 4);
        } else if (patternLength == 0 || patternLength > bs) {
            bad = ctx.invalidParameterField(PATTERN_LENGTH_OFFSET, SenseBuilder.NONE);
        } else if (patternLength > length - HEADER_LENGTH) {
            bad = SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        if (bad != null) {
            ctx.fail(bad);
            return null;
        }
        ByteBufAllocator alloc = ctx.cmd().alloc();
        ByteBuf plain = chunk(alloc, bs, list, at + HEADER_LENGTH, patternLength, false);
        ByteBuf inverted = (b0 & INVERT) != 0 ? chunk(alloc, bs, list, at + HEADER_LENGTH, patternLength, true) : null;
        return new Job(ctx.lu(), plain, inverted, b0 & COUNT_MASK, (ctx.mode() & AUSE) != 0, false);
    }

    /** One write buffer: the pattern repeated from the start of each block, blocks repeated. */
    private static ByteBuf chunk(ByteBufAllocator alloc, int bs, ByteBuf list, int from, int length, boolean invert) {
        byte[] block = new byte[bs];
        for (int i = 0; i < bs; i++) {
            byte v = list.getByte(from + i % length);
            block[i] = invert ? (byte) ~v : v;
        }
        int blocks = Math.max(1, CHUNK_BYTES / bs);
        ByteBuf buf = alloc.directBuffer(blocks * bs);
        for (int i = 0; i < blocks; i++) {
            buf.writeBytes(block);
        }
        return buf;
    }

    /**
     * The sanitize operation itself: OVERWRITE passes ({@code plain} non-null), BLOCK ERASE
     * (unmap) or CRYPTOGRAPHIC ERASE (a new key, then unmap on a thin store), chunk by chunk with
     * progress, ending the LU's sanitize state however it ends.
     *
     * <p>The operation outlives its command (SBC-4 4.11.2: task management functions, resets and
     * I_T nexus loss do not stop a sanitize). With IMMED = 0 the job is bound to the command and
     * ends it when the operation ends; if the command is aborted first (ABORT TASK, a reset, a
     * lost connection), the job ends the command at once, as aborted, and carries on alone.
     *
     * <p>OVERWRITE is paced to the LU's sanitize rate ({@code daemon.sanitize-rate}): like a
     * RAID rebuild, it is background work that must not take the whole disk or memory bandwidth
     * from the other LUs of the daemon.
     */
    static final class Job implements Runnable {
        private final LogicalUnit lu;
        private final ByteBuf plain;
        private final ByteBuf inverted;
        private final int passes;
        private final boolean ause;
        private final boolean crypto;
        private boolean released;
        /** The IMMED = 0 command still waiting for the end of the operation, or null. */
        private CommandContext command;
        private long startNanos;
        private long bytesWritten;
        /** What {@code GET /api/v1/tasks} shows of the operation while it runs. */
        private WorkProgress progress;

        Job(LogicalUnit lu, ByteBuf plain, ByteBuf inverted, int passes, boolean ause, boolean crypto) {
            this.lu = lu;
            this.crypto = crypto;
            this.plain = plain;
            this.inverted = inverted;
            this.passes = passes;
            this.ause = ause;
        }

        /** Makes the job end {@code ctx} (a detached IMMED = 0 command) when it ends. */
        void bind(CommandContext ctx) {
            this.command = ctx;
        }

        @Override
        public void run() {
            boolean ok = runToEnd();
            CommandContext ctx = command;
            if (ctx != null) {
                command = null;
                if (!ok) {
                    ctx.fail(SenseReason.SANITIZE_COMMAND_FAILED);
                }
                ctx.cmd().eventLoop().execute(ctx.completion());
            }
        }

        /** @return true if the operation completed without error */
        boolean runToEnd() {
            boolean ok = false;
            progress = lu.beginWork(kind(), totalBytes());
            try {
                startNanos = System.nanoTime();
                if (crypto) {
                    cryptoErase();
                } else if (plain == null) {
                    erase();
                } else {
                    overwrite();
                }
                lu.store().flush(0, 0);
                ok = true;
            } catch (IOException | RuntimeException e) {
                log.warn("SANITIZE of LUN {} failed: the LU is in sanitize failure mode", lu.lun(), e);
            } catch (InterruptedException e) {
                log.warn("SANITIZE of LUN {} interrupted (daemon stopping): the LU is in sanitize failure mode",
                        lu.lun());
                Thread.currentThread().interrupt();
            } finally {
                release();
                lu.endWork(progress);
                lu.medium().endSanitize(ok, ause);
            }
            return ok;
        }

        private String kind() {
            return crypto ? "sanitize-crypto-erase" : plain == null ? "sanitize-block-erase" : "sanitize-overwrite";
        }

        /** The bytes the operation writes or deallocates (a crypto erase's new key itself: none). */
        private long totalBytes() {
            long bytes = lu.blockCount() * lu.blockSize();
            return plain != null ? passes * bytes : crypto && !lu.store().supportsUnmap() ? 0 : bytes;
        }

        /**
         * SBC-4 5.30.3: the old key is gone before anything else (durably: the store writes the new
         * one first); a thin store then deallocates everything, so reads return zeros rather than
         * noise, and the space is given back.
         */
        private void cryptoErase() throws IOException {
            lu.store().cryptoErase();
            if (lu.store().supportsUnmap()) {
                erase();
            }
        }

        private void erase() throws IOException {
            long total = lu.blockCount();
            long step = Math.max(1, (long) CHUNK_BYTES * 64 / lu.blockSize());
            for (long done = 0; done < total; done += step) {
                long n = Math.min(step, total - done);
                lu.store().unmap(done, n);
                progress.advance(n * lu.blockSize());
                lu.medium().sanitizeProgress(done, total);
                endAbortedCommand();
            }
        }

        private void overwrite() throws IOException, InterruptedException {
            long total = lu.blockCount();
            int chunkBlocks = plain.readableBytes() / lu.blockSize();
            boolean fua = !lu.modes().writeCacheEnabled();
            for (int pass = 0; pass < passes; pass++) {
                // SBC-4 5.30.2: with INVERT the last pass writes the pattern as given
                ByteBuf src = inverted != null && (passes - pass) % 2 == 0 ? inverted : plain;
                for (long done = 0; done < total; done += chunkBlocks) {
                    int n = (int) Math.min(chunkBlocks, total - done);
                    lu.store().write(done, src.slice(src.readerIndex(), n * lu.blockSize()), fua);
                    progress.advance((long) n * lu.blockSize());
                    lu.medium().sanitizeProgress(pass * total + done, passes * total);
                    endAbortedCommand();
                    pace((long) n * lu.blockSize());
                }
            }
        }

        /** Sleeps as long as it takes to stay at or below the LU's sanitize rate. */
        private void pace(long bytes) throws InterruptedException {
            long rate = lu.sanitizeBytesPerSecond();
            bytesWritten += bytes;
            if (rate <= 0) {
                return;
            }
            long dueNanos = (long) (bytesWritten * 1e9 / rate);
            long aheadMillis = (dueNanos - (System.nanoTime() - startNanos)) / 1_000_000;
            if (aheadMillis > 0) {
                Thread.sleep(aheadMillis);
            }
        }

        /** An aborted IMMED = 0 command ends now (as aborted); the operation goes on. */
        private void endAbortedCommand() {
            CommandContext ctx = command;
            if (ctx != null && ctx.cmd().isAborted()) {
                command = null;
                ctx.cmd().eventLoop().execute(ctx.completion());
            }
        }

        /** Releases the pattern buffers once (idempotent). */
        void release() {
            if (released) {
                return;
            }
            released = true;
            if (plain != null) {
                plain.release();
            }
            if (inverted != null) {
                inverted.release();
            }
        }
    }
}
