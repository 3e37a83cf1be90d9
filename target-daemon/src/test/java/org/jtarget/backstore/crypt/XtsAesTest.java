package org.jtarget.backstore.crypt;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/** XTS-AES against the IEEE 1619-2007 Annex B test vectors, and the ByteBuf paths against the byte[] one. */
class XtsAesTest {

    private static final HexFormat HEX = HexFormat.of();

    /** IEEE 1619 vectors 10 and 19 use the same plaintext: bytes 00..ff twice. */
    private static byte[] pattern512() {
        byte[] p = new byte[512];
        for (int i = 0; i < p.length; i++) {
            p[i] = (byte) i;
        }
        return p;
    }

    private static final String VECTOR_10_CT = "1c3b3a102f770386e4836c99e370cf9bea00803f5e482357a4ae12d414a3e63b"
            + "5d31e276f8fe4a8d66b317f9ac683f44680a86ac35adfc3345befecb4bb188fd"
            + "5776926c49a3095eb108fd1098baec70aaa66999a72a82f27d848b21d4a741b0"
            + "c5cd4d5fff9dac89aeba122961d03a757123e9870f8acf1000020887891429ca"
            + "2a3e7a7d7df7b10355165c8b9a6d0a7de8b062c4500dc4cd120c0f7418dae3d0"
            + "b5781c34803fa75421c790dfe1de1834f280d7667b327f6c8cd7557e12ac3a0f"
            + "93ec05c52e0493ef31a12d3d9260f79a289d6a379bc70c50841473d1a8cc81ec"
            + "583e9645e07b8d9670655ba5bbcfecc6dc3966380ad8fecb17b6ba02469a020a"
            + "84e18e8f84252070c13e9f1f289be54fbc481457778f616015e1327a02b140f1"
            + "505eb309326d68378f8374595c849d84f4c333ec4423885143cb47bd71c5edae"
            + "9be69a2ffeceb1bec9de244fbe15992b11b77c040f12bd8f6a975a44a0f90c29"
            + "a9abc3d4d893927284c58754cce294529f8614dcd2aba991925fedc4ae74ffac"
            + "6e333b93eb4aff0479da9a410e4450e0dd7ae4c6e2910900575da401fc07059f"
            + "645e8b7e9bfdef33943054ff84011493c27b3429eaedb4ed5376441a77ed4385"
            + "1ad77f16f541dfd269d50d6a5f14fb0aab1cbb4c1550be97f7ab4066193c4caa"
            + "773dad38014bd2092fa755c824bb5e54c4f36ffda9fcea70b9c6e693e148c151";

    private static final String VECTOR_19_CT = "38b45812ef43a05bd957e545907e223b954ab4aaf088303ad910eadf14b42be6"
            + "8b2461149d8c8ba85f992be970bc621f1b06573f63e867bf5875acafa04e42cc"
            + "bd7bd3c2a0fb1fff791ec5ec36c66ae4ac1e806d81fbf709dbe29e471fad3854"
            + "9c8e66f5345d7c1eb94f405d1ec785cc6f6a68f6254dd8339f9d84057e01a177"
            + "41990482999516b5611a38f41bb6478e6f173f320805dd71b1932fc333cb9ee3"
            + "9936beea9ad96fa10fb4112b901734ddad40bc1878995f8e11aee7d141a2f5d4"
            + "8b7a4e1e7f0b2c04830e69a4fd1378411c2f287edf48c6c4e5c247a19680f7fe"
            + "41cefbd49b582106e3616cbbe4dfb2344b2ae9519391f3e0fb4922254b1d6d2d"
            + "19c6d4d537b3a26f3bcc51588b32f3eca0829b6a5ac72578fb814fb43cf80d64"
            + "a233e3f997a3f02683342f2b33d25b492536b93becb2f5e1a8b82f5b88334272"
            + "9e8ae09d16938841a21a97fb543eea3bbff59f13c1a18449e398701c1ad51648"
            + "346cbc04c27bb2da3b93a1372ccae548fb53bee476f9e9c91773b1bb19828394"
            + "d55d3e1a20ed69113a860b6829ffa847224604435070221b257e8dff783615d2"
            + "cae4803a93aa4334ab482a0afac9c0aeda70b45a481df5dec5df8cc0f423c77a"
            + "5fd46cd312021d4b438862419a791be03bb4d97c0e59578542531ba466a83baf"
            + "92cefc151b5cc1611a167893819b63fb8a6b18e86de60290fa72b797b0ce59f3";

    @Test
    void ieee1619Vector10XtsAes256() {
        // key1 = digits of e, key2 = digits of pi; data unit sequence number ff (tweak ff00..00)
        XtsKey key = XtsKey.of(HEX.parseHex("2718281828459045235360287471352662497757247093699959574966967627"
                + "3141592653589793238462643383279502884197169399375105820974944592"));
        XtsAes xts = new XtsAes(key);
        byte[] data = pattern512();
        xts.encrypt(data, 0xFF);
        assertThat(HEX.formatHex(data)).isEqualTo(VECTOR_10_CT);
        xts.decrypt(data, 0xFF);
        assertThat(data).isEqualTo(pattern512());
    }

    @Test
    void ieee1619Vector19XtsAes128WithA40BitDataUnitNumber() {
        XtsKey key = XtsKey.of(HEX.parseHex("e0e1e2e3e4e5e6e7e8e9eaebecedeeefc0c1c2c3c4c5c6c7c8c9cacbcccdcecf"));
        XtsAes xts = new XtsAes(key);
        byte[] data = pattern512();
        xts.encrypt(data, 0xA987654321L);
        assertThat(HEX.formatHex(data)).isEqualTo(VECTOR_19_CT);
    }

    @Test
    void byteBufPathsMatchTheArrayPathPerBlock() {
        XtsAes xts = new XtsAes(XtsKey.generate(new SecureRandom()));
        byte[] plain = new byte[3 * 4096];
        new SecureRandom().nextBytes(plain);
        ByteBuf src = Unpooled.wrappedBuffer(plain.clone());
        ByteBuf dst = Unpooled.directBuffer(plain.length + 7);
        try {
            dst.writerIndex(7 + plain.length);
            xts.encrypt(src, 0, dst, 7, 4096, 3, 1000);
            byte[] second = java.util.Arrays.copyOfRange(plain, 4096, 8192);
            xts.encrypt(second, 1001);
            byte[] got = new byte[4096];
            dst.getBytes(7 + 4096, got);
            assertThat(got).isEqualTo(second);
            assertThat(src.array()).isEqualTo(plain);

            xts.decryptInPlace(dst, 7, 4096, 3, 1000);
            byte[] back = new byte[plain.length];
            dst.getBytes(7, back);
            assertThat(back).isEqualTo(plain);
        } finally {
            src.release();
            dst.release();
        }
    }

    @Test
    void allZeroCiphertextDecryptsToZeros() {
        XtsAes xts = new XtsAes(XtsKey.generate(new SecureRandom()));
        ByteBuf buf = Unpooled.directBuffer(1024).writeZero(1024);
        try {
            xts.decryptInPlace(buf, 0, 512, 2, 5);
            assertThat(XtsAes.isZero(toArray(buf), 1024)).isTrue();
        } finally {
            buf.release();
        }
    }

    @Test
    void rekeyChangesTheCiphertext() {
        XtsAes xts = new XtsAes(XtsKey.generate(new SecureRandom()));
        byte[] a = pattern512();
        xts.encrypt(a, 1);
        xts.rekey(XtsKey.generate(new SecureRandom()));
        byte[] b = pattern512();
        xts.encrypt(b, 1);
        assertThat(b).isNotEqualTo(a);
    }

    private static byte[] toArray(ByteBuf b) {
        byte[] a = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), a);
        return a;
    }
}
