// A link's codecs across restarts and refusals (LinkCodecs): a push sent again goes as it went,
// a lost model change or a restarted peer gets the model whole, and what a peer should not send
// is refused.
#include "CodecTestSupport.h"
#include "LinkCodecs.h"
#include "Vocabulary.h"

#include <QtTest>

using namespace hips;
using namespace hips::codectest;

class TestLinkCodecs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A push sent again (its global server restarted and lost it) goes as it went the first time:
    // the same bytes, and the residual it left stays as it was. Fed back a second time, the
    // update went twice into the sum of what was sent, and every later push carried the excess.
    void aPushSentAgainGoesAsItWent() {
        for (const auto& [name, momentum] :
             {std::pair{QStringLiteral("topk"), 0.0}, {QStringLiteral("topk"), 0.9}, {QStringLiteral("2bit"), 0.0}}) {
            auto c = std::shared_ptr<GradientCodec>(codec(name, 0.002, 0.05, 1, momentum, 1024, 2));
            LinkCodecs again(every(c), 1000), once(every(c), 1000);
            auto send = [](LinkCodecs& link, const std::vector<float>& v, qint64 round) {
                Message m = floatsMessage(message::kPush, v, round);
                link.outgoing("p/server0", m);
                return QByteArray(static_cast<const char*>(m.frames[0].data()), qsizetype(m.frames[0].size()));
            };
            for (qint64 round = 1; round <= 5; ++round) {  // two warm-up rounds (whole), then encoded
                const std::vector<float> v = gaussian(1000, 10 + int(round), 0.001f);
                const QByteArray sent = send(again, v, round);
                QCOMPARE(send(again, v, round), sent);  // again: the same bytes
                QCOMPARE(send(once, v, round), sent);  // as a link that sent each once: the same residuals
            }
        }
    }

    void aLostChangeOrARestartSendsTheModelWhole() {
        auto c = std::shared_ptr<GradientCodec>(codec("topk", 0, 0.1));
        LinkCodecs sender(every(c), 100);
        const std::vector<float> model = gaussian(100, 5, 1.0f);
        auto send = [&](qint64 version) {
            Message m = floatsMessage(message::kModel, model, version);
            sender.outgoing("p/server0", m);
            return m.fields.value(QStringLiteral("dense")).toBool();
        };
        QVERIFY(send(1));
        QVERIFY(!send(2));
        sender.undelivered("p/server0", Message(message::kModel));
        QVERIFY(send(3));
        QVERIFY(!send(4));
        Message pull(message::kPull, {{QStringLiteral("version"), 0}});
        QCOMPARE(sender.incoming("p/server0", pull), QString());
        QVERIFY(send(5));
    }

    void aLinkRefusesWhatItsPeerShouldNotSend() {
        auto c = std::shared_ptr<GradientCodec>(codec("2bit", 0.01));
        auto other = std::shared_ptr<GradientCodec>(codec("2bit", 0.02));
        LinkCodecs ours(every(c), 100);
        LinkCodecs theirs([other](const QString&) { return other.get(); }, 100);
        LinkCodecs plain([](const QString&) { return nullptr; }, 100);
        const std::vector<float> v = gaussian(100, 9);

        Message mismatched = floatsMessage(message::kPush, v);
        theirs.outgoing("p/server0", mismatched);
        QVERIFY(ours.incoming("central/global_server0", mismatched).contains("this link's codec is '2bit t=0.01 ef=1'"));

        Message unexpected = floatsMessage(message::kPush, v);
        ours.outgoing("p/server0", unexpected);
        QVERIFY(plain.incoming("central/global_server0", unexpected).contains("plain floats"));

        Message uncompressed = floatsMessage(message::kPush, v);  // a peer that compresses nothing
        QVERIFY(ours.incoming("central/global_server0", uncompressed).contains("'none'"));

        Message tooLarge = floatsMessage(message::kPush, gaussian(200, 1));
        LinkCodecs larger(every(c), 1000);  // a peer that claims a larger model
        larger.outgoing("p/server0", tooLarge);
        QVERIFY(ours.incoming("central/global_server0", tooLarge).contains("do not fit a model of 100"));

        Message change = floatsMessage(message::kModel, v);
        ours.outgoing("p/server0", change);  // dense: the first
        Message second = floatsMessage(message::kModel, v, 2);
        ours.outgoing("p/server0", second);
        LinkCodecs fresh(every(c), 100);
        QVERIFY(fresh.incoming("central/global_server0", second).contains("never had whole"));

        Message other_type(QStringLiteral("pull"), {{QStringLiteral("version"), 3}});
        QCOMPARE(ours.incoming("x", other_type), QString());  // only pushes and models carry floats
    }
};

QTEST_GUILESS_MAIN(TestLinkCodecs)
#include "tst_linkcodecs.moc"
