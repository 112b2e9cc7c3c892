// Secure aggregation's arithmetic and cryptography (SecureAggregation.h), as the party servers
// and the global server use them: fixed point in ℤ_2^64, pairwise masks that cancel in the sum,
// a masked push uncorrelated with what it hides, Shamir shares that recover a dropped party's
// masks, and the boxes the shares travel in.
#include "CurveSecurity.h"
#include "DataPlan.h"
#include "SecureAggregation.h"

#include <QRandomGenerator>
#include <QtTest>
#include <cmath>

using namespace hips;
using namespace hips::secagg;

namespace {

struct MaskingParty {
    KeyPair keys = KeyPair::generate();
    std::vector<float> sum;
    std::vector<quint64> masked;
};

std::vector<float> randomFloats(size_t n, double scale, quint32 seed) {
    QRandomGenerator rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = float((rng.generateDouble() * 2 - 1) * scale);
    return v;
}

// What a party pushes in `round`: its sum in fixed point plus its masks with every other party.
void maskAll(std::vector<MaskingParty>& parties, quint64 round) {
    for (size_t i = 0; i < parties.size(); ++i) {
        MaskingParty& p = parties[i];
        p.masked.assign(p.sum.size(), 0);
        encode(p.sum.data(), p.sum.size(), int(parties.size()), p.masked.data());
        for (size_t j = 0; j < parties.size(); ++j) {
            if (j == i) continue;
            const auto key = agreeKey(p.keys.secretKey, p.keys.publicKey, parties[j].keys.publicKey);
            QVERIFY(key);
            applyMask(p.masked.data(), 0, p.masked.size(), *key, round, i < j);
        }
    }
}

std::vector<quint64> ringSum(const std::vector<MaskingParty>& parties, const std::vector<size_t>& which) {
    std::vector<quint64> sum(parties[0].sum.size(), 0);
    for (size_t i : which)
        for (size_t k = 0; k < sum.size(); ++k) sum[k] += parties[i].masked[k];
    return sum;
}

}  // namespace

class SecureAggregationTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fixedPointRoundTripsWithinHalfAStep() {
        const std::vector<float> x = {0.0f, 1.0f, -1.0f, 1e-9f, -3.25e-5f, 1234.5678f, -98765.4f};
        std::vector<quint64> words(x.size());
        QCOMPARE(encode(x.data(), x.size(), 4, words.data()), size_t(0));
        std::vector<float> back(x.size());
        decode(words.data(), words.size(), 1.0, back.data());
        for (size_t i = 0; i < x.size(); ++i)
            QVERIFY2(std::abs(double(back[i]) - double(x[i])) <= kStep / 2 + std::abs(x[i]) * 1e-7, qPrintable(QString::number(i)));
        // Beyond the range of 4 parties' sum: clamped, and counted.
        const float big[] = {float(bound(4) * 2), -float(bound(4) * 2), NAN};
        quint64 out[3];
        QCOMPARE(encode(big, 3, 4, out), size_t(3));
        float shown[3];
        decode(out, 3, 1.0, shown);
        QVERIFY(std::abs(double(shown[0]) - bound(4)) <= bound(4) * 1e-6);
        QVERIFY(std::abs(double(shown[1]) + bound(4)) <= bound(4) * 1e-6);
        QCOMPARE(shown[2], 0.0f);
    }

    // The check of the issue: the global server's sum equals the plain sum to within the fixed
    // point's step (each party rounds once: n half steps), over a million floats.
    void masksCancelInTheSumOfAllParties() {
        const size_t n = 1'000'000;
        std::vector<MaskingParty> parties(4);
        for (size_t i = 0; i < parties.size(); ++i) parties[i].sum = randomFloats(n, 0.05, quint32(7 + i));
        maskAll(parties, 3);
        const std::vector<quint64> sum = ringSum(parties, {0, 1, 2, 3});
        std::vector<float> plain(n);
        decode(sum.data(), n, 1.0, plain.data());
        double worst = 0;
        for (size_t k = 0; k < n; ++k) {
            double exact = 0;
            for (const MaskingParty& p : parties) exact += double(p.sum[k]);
            // the rounding to float of the result, and 4 half steps
            worst = std::max(worst, std::abs(double(plain[k]) - exact) - std::abs(exact) * 6e-8);
        }
        QVERIFY2(worst <= 4 * kStep / 2, qPrintable(QString::number(worst)));
        // A mask missing: nothing like the sum.
        const std::vector<quint64> three = ringSum(parties, {0, 1, 2});
        decode(three.data(), 1, 1.0, plain.data());
        QVERIFY(std::abs(double(plain[0])) > 1e3);
    }

    // One party's masked push says nothing about its sum: |correlation| < 0.01 over 1M floats.
    void aMaskedPushIsUncorrelatedWithItsSum() {
        const size_t n = 1'000'000;
        std::vector<MaskingParty> parties(3);
        for (size_t i = 0; i < parties.size(); ++i) parties[i].sum = randomFloats(n, 1.0, quint32(40 + i));
        maskAll(parties, 1);
        for (const MaskingParty& p : parties) {
            double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
            for (size_t k = 0; k < n; ++k) {
                const double x = double(p.sum[k]), y = double(qint64(p.masked[k])) * kStep;
                sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
            }
            const double cov = sxy / n - sx / n * sy / n;
            const double corr = cov / std::sqrt((sxx / n - sx / n * sx / n) * (syy / n - sy / n * sy / n));
            QVERIFY2(std::abs(corr) < 0.01, qPrintable(QString::number(corr)));
        }
    }

    // Masks differ per round, and the keystream at an offset is that of the whole: a slice masked
    // alone (as the global server unmasks slice by slice) equals the slice of the whole masked.
    void masksDependOnTheRoundAndSlicesAgreeWithTheWhole() {
        const Key key = *agreeKey(KeyPair::generate().secretKey, KeyPair::generate().publicKey, KeyPair::generate().publicKey);
        std::vector<quint64> whole(1000, 0), slice(200, 0), otherRound(1000, 0);
        applyMask(whole.data(), 0, whole.size(), key, 5, true);
        applyMask(slice.data(), 400, slice.size(), key, 5, true);
        applyMask(otherRound.data(), 0, otherRound.size(), key, 6, true);
        QVERIFY(std::equal(slice.begin(), slice.end(), whole.begin() + 400));
        QVERIFY(whole != otherRound);
        applyMask(whole.data(), 0, whole.size(), key, 5, false);
        QVERIFY(std::all_of(whole.begin(), whole.end(), [](quint64 w) { return w == 0; }));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, applyMask(whole.data(), 3, 10, key, 5, true));
    }

    void bothSidesAgreeOnTheKey() {
        const KeyPair a = KeyPair::generate(), b = KeyPair::generate();
        QCOMPARE(*agreeKey(a.secretKey, a.publicKey, b.publicKey), *agreeKey(b.secretKey, b.publicKey, a.publicKey));
        QVERIFY(*agreeKey(a.secretKey, a.publicKey, b.publicKey) != *agreeKey(a.secretKey, a.publicKey, KeyPair::generate().publicKey));
        QCOMPARE(*publicKeyOf(a.secretKey), a.publicKey);
        // A low-order point is no key to agree on.
        QVERIFY(!agreeKey(a.secretKey, a.publicKey, Key{}));
    }

    // Any `threshold` shares give the secret back; fewer give another key (which the global
    // server's check against the public key refuses); repeated places are refused.
    void shamirSharesRecoverWithTheThresholdAndNotBelow() {
        const KeyPair k = KeyPair::generate();
        const std::vector<Share> shares = split(k.secretKey, 3, 5);
        QCOMPARE(shares.size(), size_t(5));
        for (size_t a = 0; a < 5; ++a)
            for (size_t b = a + 1; b < 5; ++b)
                for (size_t c = b + 1; c < 5; ++c) QCOMPARE(*combine({shares[a], shares[b], shares[c]}), k.secretKey);
        QCOMPARE(*combine(shares), k.secretKey);
        QVERIFY(*combine({shares[0], shares[3]}) != k.secretKey);
        QVERIFY(*publicKeyOf(*combine({shares[1], shares[4]})) != k.publicKey);
        QVERIFY(!combine({shares[0], shares[0], shares[1]}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, split(k.secretKey, 4, 3));
    }

    // Wrong shares among them (a member's lie) or a repeated place: the key is still found from
    // any `threshold` good ones (until 2026-12-02 one wrong share stopped a recovery for good: all
    // were combined, each time one more came); too few good ones find nothing.
    void aKeyIsRecoveredPastWrongShares() {
        const KeyPair k = KeyPair::generate();
        std::vector<Share> shares = split(k.secretKey, 3, 6);
        shares[1].y[5] ^= 1;  // (not in a byte X25519 clamps: another key would give the same public one)
        shares[4].y[7] ^= 0x80;
        QVERIFY(*publicKeyOf(*combine(shares)) != k.publicKey);
        QCOMPARE(*recoverKey(shares, 3, k.publicKey), k.secretKey);
        shares.push_back(shares[0]);  // a place twice
        QCOMPARE(*recoverKey(shares, 3, k.publicKey), k.secretKey);
        QVERIFY(!recoverKey({shares[0], shares[1], shares[2], shares[4]}, 3, k.publicKey));  // two good of three
        QVERIFY(!recoverKey({shares[0], shares[2]}, 3, k.publicKey));
    }

    // A party drops out after the keys were agreed: the others' shares give its key back, its
    // masks with those present are taken out, and the sum is theirs exactly (to the step).
    void aDroppedPartysMasksAreRecoveredFromTheShares() {
        const size_t n = 50'000;
        std::vector<MaskingParty> parties(4);
        for (size_t i = 0; i < parties.size(); ++i) parties[i].sum = randomFloats(n, 0.1, quint32(90 + i));
        maskAll(parties, 9);
        const size_t dropped = 2;
        const std::vector<Share> shares = split(parties[dropped].keys.secretKey, 2, 3);  // held by the 3 others
        const Key recovered = *combine({shares[0], shares[2]});
        QCOMPARE(*publicKeyOf(recovered), parties[dropped].keys.publicKey);
        std::vector<quint64> sum = ringSum(parties, {0, 1, 3});
        for (size_t j : {size_t(0), size_t(1), size_t(3)}) {
            const Key key = *agreeKey(recovered, parties[dropped].keys.publicKey, parties[j].keys.publicKey);
            applyMask(sum.data(), 0, n, key, 9, !(j < dropped));
        }
        std::vector<float> plain(n);
        decode(sum.data(), n, 1.0, plain.data());
        for (size_t k = 0; k < n; ++k) {
            const double exact = double(parties[0].sum[k]) + double(parties[1].sum[k]) + double(parties[3].sum[k]);
            QVERIFY2(std::abs(double(plain[k]) - exact) <= 3 * kStep / 2 + std::abs(exact) * 6e-8, qPrintable(QString::number(k)));
        }
    }

    // The sum of those present stands for every party's workers, as the rounds in the clear
    // rescale: parties of 6, 1 and 1 workers; the 6's loss is a 4× sum, a 1's is 8/7, not 3/2.
    void theSumOfThosePresentStandsForEveryPartysWorkers() {
        const QHash<QString, double> shares{{"p1/server0", 6}};  // (workersBehind: parties of one are not in it)
        const QStringList parties{"p1/server0", "p2/server0", "p3/server0"};
        QCOMPARE(scaleToAll(shares, parties, {"p2/server0", "p3/server0"}), 4.0);
        QCOMPARE(scaleToAll(shares, parties, {"p1/server0", "p2/server0"}), 8.0 / 7.0);
        QCOMPARE(scaleToAll(shares, parties, {"p1/server0", "p2/server0", "p3/server0"}), 1.0);
        QCOMPARE(scaleToAll(shares, parties, {}), 0.0);
    }

    void boxesOpenOnlyWithTheirKeyAndUnchanged() {
        const Key key = *agreeKey(KeyPair::generate().secretKey, KeyPair::generate().publicKey, KeyPair::generate().publicKey);
        const QByteArray letter("a share and a public key");
        QByteArray box = seal(key, letter);
        QCOMPARE(*open(key, box), letter);
        QVERIFY(seal(key, letter) != box);  // a fresh nonce each time
        QVERIFY(!open(*agreeKey(KeyPair::generate().secretKey, KeyPair::generate().publicKey, KeyPair::generate().publicKey), box));
        box[box.size() - 1] = char(box[box.size() - 1] ^ 1);
        QVERIFY(!open(key, box));
        QVERIFY(!open(key, QByteArray(10, 'x')));
    }

    // The run's CURVE keys (Z85) are X25519 keys: the pairwise key two nodes' identities give.
    void curveIdentitiesGiveThePairwiseKey() {
        const CurveKeyPair a = CurveKeyPair::generate(), b = CurveKeyPair::generate();
        const auto aSecret = fromZ85(a.secretKey), aPublic = fromZ85(a.publicKey), bSecret = fromZ85(b.secretKey),
                   bPublic = fromZ85(b.publicKey);
        QVERIFY(aSecret && aPublic && bSecret && bPublic);
        QCOMPARE(*publicKeyOf(*aSecret), *aPublic);
        QCOMPARE(*agreeKey(*aSecret, *aPublic, *bPublic), *agreeKey(*bSecret, *bPublic, *aPublic));
        QVERIFY(!fromZ85("too short"));
        QVERIFY(!fromZ85(QByteArray(40, '~')));
    }
};

QTEST_GUILESS_MAIN(SecureAggregationTest)
#include "tst_secureagg.moc"
