package org.jtarget.scsi.pr;

import org.jtarget.scsi.spi.ProtocolId;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The persistent reservation state of one LU as one record, for the peer of an HA pair: every
 * registration (with its relative target port and ALL_TG_PT, as made), the reservation, APTPL and
 * PRgeneration (which READ KEYS shows: the new primary must go on counting from it). The SPC-2
 * reservation is not in it: I_T nexus loss releases it (SPC-2 5.5.1), and a failover is one.
 * Big-endian:
 * <pre>
 * 0 version u8 (1) | 1 PRgeneration u32 | 5 flags u8 (APTPL 01h) | 6 registrations u16, each:
 *     protocol identifier u8 | reservation key u64 | relative target port u16 | ALL_TG_PT u8
 *     | initiator port name length u16 | the name (UTF-8)
 * then: reservation type code u8 (0: no reservation) | holder's index in the list u16 (FFFFh:
 *     all registrants hold it)
 * </pre>
 */
final class PrStateRecord {

    static final int VERSION = 1;
    private static final int APTPL = 0x01;
    private static final int ALL_REGISTRANTS = 0xFFFF;

    /** A decoded record. */
    record State(int generation, boolean aptpl, List<Registration> registrations, PrType type, int holderIndex) {
    }

    private PrStateRecord() {
    }

    /** The state of {@code r}; the caller holds its lock. */
    static byte[] encode(Reservations r) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + 64 * r.registrations.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeInt(r.generation);
            out.writeByte(r.aptpl ? APTPL : 0);
            out.writeShort(r.registrations.size());
            for (Registration reg : r.registrations) {
                byte[] name = reg.initiatorPortName().getBytes(StandardCharsets.UTF_8);
                out.writeByte(reg.protocol().code());
                out.writeLong(reg.key());
                out.writeShort(reg.relativeTargetPortId());
                out.writeByte(reg.allTargetPorts() ? 1 : 0);
                out.writeShort(name.length);
                out.write(name);
            }
            out.writeByte(r.type == null ? 0 : r.type.code);
            out.writeShort(r.type == null || r.type.allRegistrants() ? ALL_REGISTRANTS
                    : r.registrations.indexOf(r.holder));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return bytes.toByteArray();
    }

    /**
     * Reads a record.
     *
     * @throws IOException naming what is wrong with it
     */
    static State decode(byte[] record) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(record);
        try {
            int version = b.get() & 0xFF;
            if (version != VERSION) {
                throw new IOException("persistent reservation record version " + version + ", this node reads "
                        + VERSION);
            }
            int generation = b.getInt();
            boolean aptpl = (b.get() & APTPL) != 0;
            int count = b.getShort() & 0xFFFF;
            List<Registration> regs = new ArrayList<>(Math.min(count, 1024));
            for (int i = 0; i < count; i++) {
                int code = b.get() & 0xFF;
                ProtocolId protocol = ProtocolId.fromCode(code);
                if (protocol == null || code > 0x0F) {
                    throw new IOException("persistent reservation record: registration " + i + " has protocol "
                            + code + ", which this node does not know");
                }
                long key = b.getLong();
                int port = b.getShort() & 0xFFFF;
                boolean all = b.get() != 0;
                byte[] name = new byte[b.getShort() & 0xFFFF];
                b.get(name);
                if (key == 0 || name.length == 0) {
                    throw new IOException("persistent reservation record: registration " + i
                            + " has no key or no initiator port");
                }
                regs.add(new Registration(protocol, new String(name, StandardCharsets.UTF_8), port, all, key));
            }
            int typeCode = b.get() & 0xFF;
            int holder = b.getShort() & 0xFFFF;
            PrType type = typeCode == 0 ? null : PrType.fromCode(typeCode);
            if (typeCode != 0 && type == null) {
                throw new IOException("persistent reservation record: reservation type " + typeCode);
            }
            if (type != null && !type.allRegistrants() && holder >= regs.size()) {
                throw new IOException("persistent reservation record: holder " + holder + " of " + regs.size()
                        + " registrations");
            }
            if (b.hasRemaining()) {
                throw new IOException("persistent reservation record: " + b.remaining() + " bytes after its end");
            }
            return new State(generation, aptpl, regs, type, holder);
        } catch (BufferUnderflowException e) {
            throw new IOException("persistent reservation record of " + record.length + " bytes, cut short");
        }
    }
}
