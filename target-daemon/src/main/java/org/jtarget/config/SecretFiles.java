package org.jtarget.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Where secrets given as files ({@code secret-file:}) are read from, so that they need not sit in
 * plain text in the config: an absolute path as it is; a bare name from
 * {@code $CREDENTIALS_DIRECTORY} when systemd set it (the unit's {@code LoadCredential=NAME:PATH}
 * puts the file there, readable by the service only), else, like any other relative path, from
 * the config file's folder.
 *
 * @param baseDir        the config file's folder
 * @param credentialsDir {@code $CREDENTIALS_DIRECTORY}, or null
 */
record SecretFiles(Path baseDir, Path credentialsDir) {

    /** The secret in the file {@code node.key} names: its text without the final line break. */
    String read(ConfigNode node, String key) throws ConfigException {
        String name = node.requireString(key);
        Path file = credentialsDir != null && !name.contains("/") ? credentialsDir.resolve(name) : baseDir.resolve(name);
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw node.error(key, "no such file: " + file);
        } catch (IOException | RuntimeException e) {
            throw node.error(key, "cannot read " + file + ": " + e.getMessage());
        }
        String secret = text.endsWith("\r\n") ? text.substring(0, text.length() - 2)
                : text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        if (secret.isEmpty()) {
            throw node.error(key, file + " is empty");
        }
        return secret;
    }
}
