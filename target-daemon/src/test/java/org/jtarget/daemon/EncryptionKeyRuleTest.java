package org.jtarget.daemon;

import org.jtarget.backstore.memory.MemoryBudget;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.BackstoreConfig.Encrypt;
import org.jtarget.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The key rule of {@code encrypt} as the config meets it: never a new key over existing data, never
 * ciphertext served as plaintext; each refusal a config error naming {@code backstores[NAME].encrypt}.
 */
class EncryptionKeyRuleTest {

    @TempDir
    Path dir;

    private BackstoreConfig file(Encrypt e, boolean create) {
        return new BackstoreConfig("f0", BackstoreConfig.Type.FILE, dir.resolve("f0.img"), 1 << 20, create, 512,
                true, null).withEncrypt(e);
    }

    private Backstore open(BackstoreConfig c) throws ConfigException {
        return BackstoreOpeners.open(c, null, new MemoryBudget(MemoryBudget.UNLIMITED), dir.resolve("state"));
    }

    private Path keyFile() {
        return dir.resolve("state/keys/f0.key");
    }

    @Test
    void trueCreatesAKeyForAFileCreatedNow() throws Exception {
        try (Backstore s = open(file(Encrypt.ON, true))) {
            assertThat(s.supportsCryptoErase()).isTrue();
        }
        assertThat(keyFile()).exists();
    }

    @Test
    void trueWithoutKeyForAnExistingFileIsAConfigErrorNamingEncrypt() throws Exception {
        Files.write(dir.resolve("f0.img"), new byte[1 << 20]);
        assertThatThrownBy(() -> open(file(Encrypt.ON, true)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("backstores[f0].encrypt")
                .hasMessageContaining("encrypt: new");
        assertThat(keyFile()).doesNotExist();
    }

    @Test
    void newInitialisesAnExistingFileOnceThenRefusesUntilTrue() throws Exception {
        Files.write(dir.resolve("f0.img"), new byte[1 << 20]);
        open(file(Encrypt.NEW, false)).close();
        byte[] key = Files.readAllBytes(keyFile());
        assertThatThrownBy(() -> open(file(Encrypt.NEW, false)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("backstores[f0].encrypt");
        open(file(Encrypt.ON, false)).close();
        assertThat(Files.readAllBytes(keyFile())).isEqualTo(key);
    }

    @Test
    void offWithAKeyFilePresentIsAConfigError() throws Exception {
        open(file(Encrypt.ON, true)).close();
        assertThatThrownBy(() -> open(file(Encrypt.OFF, false)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("backstores[f0].encrypt");
    }

    @Test
    void aTruncatedKeyFileIsAConfigError() throws Exception {
        open(file(Encrypt.ON, true)).close();
        Files.write(keyFile(), new byte[10]);
        assertThatThrownBy(() -> open(file(Encrypt.ON, false)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("10 bytes");
    }

    @Test
    void withoutAStateDirectoryEncryptionIsRefused() {
        assertThatThrownBy(() -> BackstoreOpeners.open(file(Encrypt.ON, true), null,
                new MemoryBudget(MemoryBudget.UNLIMITED)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("state-dir");
    }
}
